"""The files cdmasim reads and writes for its users, and the promises every
command and API function keeps with them (docs/files.md):

- an input is read only if it is a regular file within its kind's size
  limit (the core's rule, crate::files: a FIFO, a device or a folder is
  refused before it can block or never end);
- an output path is checked before the work (a run is not lost to a path
  that cannot be written);
- an output appears whole or not at all: a file is written under a
  temporary name beside it and renamed into place; a set of files (--out,
  --log, --plot) is written into a temporary folder inside the destination
  and moved in file by file, and the files an earlier write put there and
  this one does not are removed (so two runs' outputs never mix); nothing
  that cdmasim did not write is touched;
- what a killed process left (its temporary files and folders, named with
  its process id) is removed by the next one that writes there.

tempfile and shutil are imported where they are used: `cdmasim run` without
--out or --plot needs neither (2 ms of its start-up)."""

import os
import threading

from . import _core
from .errors import InputError

#: The largest scenario or sweep file read (the core's limit for small
#: inputs: far above any real one).
MAX_SMALL_INPUT_BYTES = 64 << 20

#: In a folder cdmasim writes into: the names of the files its last write
#: put there, so that the next write removes those it does not write again.
WRITTEN = ".cdmasim-files"


def shown(path):
    """A path as text for messages, whatever bytes its name holds."""
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def read_text(path, err, what="scenario file"):
    """A file's text (UTF-8), refused with `err(message)` if it is not a
    readable regular file of at most MAX_SMALL_INPUT_BYTES."""
    name = shown(path)
    if "\x00" in os.fsdecode(path):
        raise err(f"{name}: a file name cannot hold a NUL character")
    try:
        data = _core.read_input(os.fsdecode(path), MAX_SMALL_INPUT_BYTES, what)
    except ValueError as e:
        raise err(f"{name}: {e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise err(f"{name}: cannot read: not UTF-8 text") from None


# -- temporary names of this process, and what killed processes left -------

def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale(folder, prefix):
    """Remove the entries of `folder` named `PREFIX<pid>-...` or
    `PREFIX<pid>.tmp` whose process no longer runs: what a killed cdmasim
    left. Only that pattern, only dead processes' entries."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for name in entries:
        if not name.startswith(prefix):
            continue
        digits = name[len(prefix):].split("-", 1)[0].split(".", 1)[0]
        if not digits.isdigit() or int(digits) == os.getpid() or _alive(int(digits)):
            continue
        path = os.path.join(folder, name)
        if os.path.islink(path) or not os.path.isdir(path):
            try:
                os.unlink(path)
            except OSError:
                pass
        else:
            import shutil

            shutil.rmtree(path, ignore_errors=True)


def temp_dir(parent, prefix):
    """A new folder `PARENT/PREFIX<pid>-<random>` (mode 0700), after
    removing those of the same prefix that killed processes left."""
    remove_stale(parent, prefix)
    while True:
        path = os.path.join(parent, f"{prefix}{os.getpid()}-{os.urandom(4).hex()}")
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue


def write_file(dest, write):
    """Write the file `dest` whole or not at all: `write(tmp)` writes a
    temporary file beside it (the same folder, so the same file system),
    which then replaces `dest` in one rename. On any error or Ctrl-C the
    temporary file goes and `dest` is as it was."""
    folder, name = os.path.split(os.path.abspath(dest))
    prefix = f".{name}.cdmasim-"
    remove_stale(folder, prefix)
    # Named after the process and the thread: two threads may write one file.
    tmp = os.path.join(folder, f"{prefix}{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, dest)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


# -- output paths, checked before the work -----------------------------------

def _nearest_existing(p):
    parent = os.path.dirname(p)
    while not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    return parent


def _can_write_in(folder):
    """Whether a file can really be made in `folder`: permission bits do
    not tell (root passes os.access on /proc, a read-only mount says yes),
    so one is made and removed at once."""
    probe = os.path.join(folder, f".cdmasim-probe-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return False
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def _path_argument(flag, path, what):
    if isinstance(path, bool) or not isinstance(path, (str, bytes, os.PathLike)):
        raise InputError(f"{flag}: expected {what} path, got {path!r}")
    path = os.fsdecode(os.fspath(path))
    if not path:
        raise InputError(f"{flag}: expected {what} path, got an empty one")
    if "\x00" in path:
        raise InputError(f"{flag}: a path cannot hold a NUL character")
    return path


def check_output_dir(flag, path):
    """`path` can become a folder we write into: it is one already, or its
    nearest existing parent is a folder we can write in. Returns the path
    as text."""
    path = _path_argument(flag, path, "a folder")
    p = os.path.abspath(path)
    if os.path.islink(p) and not os.path.exists(p):
        raise InputError(f"{flag}: {shown(path)}: a link to nothing ({shown(os.readlink(p))})")
    if os.path.exists(p):
        if not os.path.isdir(p):
            raise InputError(f"{flag}: {shown(path)}: exists and is not a folder")
        if not _can_write_in(p):
            raise InputError(f"{flag}: {shown(path)}: not writable")
        return path
    parent = _nearest_existing(p)
    if not os.path.isdir(parent) or not _can_write_in(parent):
        raise InputError(f"{flag}: {shown(path)}: cannot be created ({shown(parent)} is not a writable folder)")
    return path


def check_output_file(flag, path):
    """`path` can be written as a file: not a folder, in a folder we can
    write in (a file is really made there and removed: /proc and /sys say
    yes to permission checks). Returns the path as text."""
    path = _path_argument(flag, path, "a file")
    p = os.path.abspath(path)
    if os.path.isdir(p):
        raise InputError(f"{flag}: {shown(path)}: is a folder")
    parent = os.path.dirname(p)
    if not os.path.isdir(parent):
        raise InputError(f"{flag}: {shown(path)}: no such folder {shown(parent)}")
    if not _can_write_in(parent):
        raise InputError(f"{flag}: {shown(path)}: cannot write in {shown(parent)}")
    return path


# -- a set of files written into a folder ------------------------------------

def _written_before(out):
    """The names the last write into `out` recorded (none if the record is
    missing or is not ours)."""
    path = os.path.join(out, WRITTEN)
    if os.path.islink(path) or not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            names = f.read(1 << 20).splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    # Plain names in this folder only: a damaged record removes nothing elsewhere.
    return [n for n in names if n and n not in (".", "..") and "/" not in n and "\x00" not in n and n != WRITTEN]


def write_into(out, write):
    """Write a set of files into the folder `out` all together: `write(tmp)`
    fills a fresh folder inside `out` (so the same file system), then each
    file it made takes its place in `out` (replacing a file of the same
    name, such as an earlier run's), and the files the previous write into
    `out` made that this one did not are removed. A user's own files stay.
    On any error or Ctrl-C before the moves, the temporary folder goes and
    `out` is as it was; a name in `out` that is a folder where a file would
    go is an error before anything moves. Returns the names written."""
    import shutil

    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    tmp = temp_dir(out, ".cdmasim-new-")
    try:
        write(tmp)
        names = sorted(os.listdir(tmp))
        for name in names:
            dest = os.path.join(out, name)
            if os.path.isdir(dest) and not os.path.islink(dest):
                raise InputError(f"{shown(dest)}: is a folder; cdmasim writes a file of that name here "
                                 "(nothing was written)")
        before = _written_before(out)
        for name in names:
            os.replace(os.path.join(tmp, name), os.path.join(out, name))
        for name in set(before) - set(names):
            path = os.path.join(out, name)
            if os.path.islink(path) or os.path.isfile(path):
                try:
                    os.unlink(path)
                except OSError:
                    pass

        def record(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(n + "\n" for n in names))

        write_file(os.path.join(out, WRITTEN), record)
        return names
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
