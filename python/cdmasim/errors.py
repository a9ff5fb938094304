"""The one error every layer of the package raises for bad user input.

Its own module, below everything else, so that no module has to import the
package's root (which loads the public API lazily from the modules that
raise it)."""


class InputError(ValueError):
    """Bad user input (a scenario, trace or capture file): the CLI prints its
    one-line message and exits with status 2."""
