"""Where the commands write: checked before any long work (so that a run is
not lost to a path that cannot be written), and written all together into
the folder given, never touching a file there that cdmasim did not write
(a user's own files in an --out folder stay)."""

import os

from .. import InputError

# tempfile and shutil are imported where they are used: `cdmasim run`
# without --out or --plot never needs them (2 ms of its start-up).


def _nearest_existing(p):
    parent = os.path.dirname(p)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    return parent


def _can_make_dir_in(parent):
    """Whether a folder can really be made in `parent`: permission bits do
    not tell (root passes os.access on /proc, a read-only mount says yes),
    so one is made and removed at once."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".cdmasim-probe-", dir=parent))
        return True
    except OSError:
        return False


def check_output_dir(flag, path):
    """`path` can become a directory we write into: it is one already, or
    its nearest existing parent is a writable directory."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InputError(f"{flag}: expected a folder path, got {path!r}")
    p = os.path.abspath(path)
    if os.path.exists(p):
        if not os.path.isdir(p):
            raise InputError(f"{flag}: {path}: exists and is not a directory")
        if not os.access(p, os.W_OK | os.X_OK) or not _can_make_dir_in(p):
            raise InputError(f"{flag}: {path}: not writable")
        return
    parent = _nearest_existing(p)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK) or not _can_make_dir_in(parent):
        raise InputError(f"{flag}: {path}: cannot be created ({parent} is not a writable directory)")


def check_output_file(flag, path):
    """`path` can be written as a file: not a directory, and in a writable directory."""
    p = os.path.abspath(path)
    if os.path.isdir(p):
        raise InputError(f"{flag}: {path}: is a directory")
    if os.path.exists(p):
        if not os.access(p, os.W_OK):
            raise InputError(f"{flag}: {path}: not writable")
        return
    parent = os.path.dirname(p)
    if not os.path.isdir(parent):
        raise InputError(f"{flag}: {path}: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{flag}: {path}: {parent} is not writable")


def write_into(out, write):
    """Write a set of files into the folder `out` all together, touching
    nothing else there: `write(tmp)` fills a fresh folder inside `out` (so
    the same file system), then each file it made takes its place in `out`
    (replacing a file of the same name, such as an earlier run's). On any
    error or Ctrl-C before that, the temporary folder goes and `out` is as
    it was; a name in `out` that is a folder where a file would go is an
    error before anything moves. Returns the names written."""
    import shutil
    import tempfile

    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".cdmasim-new-", dir=out)
    try:
        write(tmp)
        names = sorted(os.listdir(tmp))
        for name in names:
            dest = os.path.join(out, name)
            if os.path.isdir(dest) and not os.path.islink(dest):
                raise InputError(f"{dest}: is a folder; cdmasim writes a file of that name here (nothing was written)")
        for name in names:
            os.replace(os.path.join(tmp, name), os.path.join(out, name))
        return names
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
