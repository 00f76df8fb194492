"""Saving a figure as tilekit writes every file: only to a regular file or a new path, whole or
not at all (the C++ side's rules, core/output_file.hpp)."""
import os
import stat
import tempfile


def save_figure(fig, path, **savefig_args):
    """Saves `fig` as PNG to `path` through a temporary in the same folder renamed into place;
    refuses a symlink, a device or any other non-regular target with a one-line error."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise SystemExit(f"{path}: is not a regular file; tilekit writes only to a regular file "
                         "or a new path")
    folder = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", **savefig_args)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
