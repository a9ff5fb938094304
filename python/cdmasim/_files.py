"""Reading the files users name (scenarios, sweeps), and showing their names
in one-line errors, whatever the names hold."""

import os

#: The largest sweep or scenario file read: far above any real one, and a
#: device or an endless file is refused instead of read forever.
MAX_FILE_BYTES = 64 << 20


def shown(path):
    """A path as text for messages, whatever bytes its name holds."""
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def read_text(path, err):
    """A file's text (UTF-8), refused with `err(message)` if it is not a
    readable regular file of at most MAX_FILE_BYTES: a FIFO or /dev/zero
    would block or never end."""
    import stat

    name = shown(path)
    if "\x00" in os.fsdecode(path):
        raise err(f"{name}: a file name cannot hold a NUL character")
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise err(f"{name}: cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise err(f"{name}: cannot read: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise err(f"{name}: not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise err(f"{name}: {st.st_size} bytes; larger than any scenario or sweep file "
                      f"({MAX_FILE_BYTES >> 20} MB at most)")
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise err(f"{name}: cannot read: {e.strerror or e}") from None
    finally:
        if fd is not None:
            os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise err(f"{name}: cannot read: not UTF-8 text") from None
