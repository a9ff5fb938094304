"""Where the commands write: checked before any long work (so that a run is
not lost to a path that cannot be written), and directories replaced whole
(a complete new directory or the old one, never a mix)."""

import os
import shutil
import tempfile

from .. import InputError


def _nearest_existing(p):
    parent = os.path.dirname(p)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    return parent


def _can_make_dir_in(parent):
    """Whether a folder can really be made in `parent`: permission bits do
    not tell (root passes os.access on /proc, a read-only mount says yes),
    so one is made and removed at once."""
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


def replace_dir(out, write):
    """Write a directory atomically: `write(tmp)` fills a fresh sibling
    directory, which then takes `out`'s place (an earlier `out` is removed
    only once the new one is complete). On any error or Ctrl-C the
    temporary directory goes and `out` is as it was."""
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    name = os.path.basename(out)
    tmp = tempfile.mkdtemp(prefix=f".{name}.new-", dir=parent)
    old = None
    try:
        write(tmp)
        if os.path.exists(out):
            old = tempfile.mkdtemp(prefix=f".{name}.old-", dir=parent)
            os.rmdir(old)
            os.rename(out, old)
        os.rename(tmp, out)
        tmp = None
    except BaseException:
        if old is not None and not os.path.exists(out):
            os.rename(old, out)
            old = None
        raise
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
