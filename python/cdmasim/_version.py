"""The package's version, in a module of its own so that modules below the
package's root can name it without importing the root."""

__version__ = "0.1.0"
