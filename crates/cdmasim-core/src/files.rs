//! The files users name, read and written with the two promises every
//! command keeps (docs/files.md):
//!
//! - an input is a regular file of bounded size: a FIFO (which would block
//!   until a writer comes), a device (which may never end) or a folder is
//!   refused before a byte is read, and a file larger than its kind's limit
//!   is refused before it is read into memory;
//! - an output appears whole or not at all: it is written under a temporary
//!   name beside its destination and renamed over it only once complete, so
//!   a run killed half-way leaves the previous complete file in place.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Text DRC traces, Mahimahi traces and binary traces read whole: 1 GiB, a
/// day and a half of slots as text with SINR (binary traces stream from
/// their file for statistics, whatever their length).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// Small inputs written by hand or by cdmasim: Markov and regime models,
/// a cdma2000 cell's SCH schedule, a scenario file (64 MiB).
pub const MAX_SMALL_INPUT_BYTES: u64 = 64 << 20;

/// An I/O error's message as a one-line error shows it: the system's words
/// without Rust's " (os error N)".
pub fn reason(message: &str) -> &str {
    match message.find(" (os error ") {
        Some(i) if message.ends_with(')') => &message[..i],
        _ => message,
    }
}

fn refused(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// What a file that is not a regular one is, for the one-line error.
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Open a file a user named, for reading: a regular file only, checked on
/// the open descriptor (no window between the check and the read). Opened
/// with O_NONBLOCK so that a FIFO without a writer does not block the open
/// itself (the flag means nothing for a regular file). Returns the file and
/// its length.
pub fn open_input(path: &Path) -> io::Result<(File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(refused(format!("{}, not a regular file", kind_of(meta.file_type()))));
    }
    Ok((file, meta.len()))
}

/// Read a whole input file of at most `limit` bytes (`what` names its kind
/// in the error): refused before reading if it is larger, and never more
/// than `limit` bytes read if it grows meanwhile.
pub fn read_input(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    let (file, len) = open_input(path)?;
    let too_big = |n: u64| refused(format!("{n} bytes; a {what} is at most {} (docs/files.md)", human(limit)));
    if len > limit {
        return Err(too_big(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// `read_input` as UTF-8 text.
pub fn read_input_text(path: &Path, limit: u64, what: &str) -> io::Result<String> {
    String::from_utf8(read_input(path, limit, what)?).map_err(|_| refused("not UTF-8 text".into()))
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b.is_multiple_of(1 << 30) => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b.is_multiple_of(1 << 20) => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

/// An output file that appears whole or not at all. Written under
/// `.NAME.cdmasim-PID.tmp` in NAME's folder (the same file system, so the
/// rename is atomic); `commit` flushes, syncs and renames it over NAME.
/// Dropped without `commit` (an error, a panic), the temporary file is
/// removed and NAME is as it was. A temporary file of the same NAME left
/// by a killed process is removed when the next one is created.
pub struct Output {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl Output {
    pub fn create(dest: &Path) -> io::Result<Output> {
        let name = dest.file_name().ok_or_else(|| refused("not a file name".into()))?.to_string_lossy().into_owned();
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if dest.is_dir() {
            return Err(refused("is a folder".into()));
        }
        remove_stale(&dir, &name);
        let tmp = dir.join(format!(".{name}.cdmasim-{}.tmp", std::process::id()));
        let file = File::create(&tmp)?;
        Ok(Output { dest: dest.to_path_buf(), tmp, file: Some(BufWriter::with_capacity(1 << 16, file)) })
    }

    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Put the complete file in place.
    pub fn commit(mut self) -> io::Result<()> {
        let w = self.file.take().expect("an output is committed once");
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        if let Err(e) = std::fs::rename(&self.tmp, &self.dest) {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(e);
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.as_mut().expect("not committed").write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Write `bytes` as the whole of `dest` (an `Output` in one call).
pub fn write_output(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = Output::create(dest)?;
    out.write_all(bytes)?;
    out.commit()
}

/// Remove `.NAME.cdmasim-PID.tmp` files in `dir` whose process is gone
/// (killed before its commit): only that pattern, only for this NAME.
fn remove_stale(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = format!(".{name}.cdmasim-");
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(&prefix)).and_then(|r| r.strip_suffix(".tmp")) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A name from a scenario (a link, a user) as one file name component:
/// ASCII letters, digits, `-` and `_` stay, every other byte is `%XX`
/// (so `x/y` and `x_y` stay distinct, and no name reaches outside its
/// folder), and a leading `.` is escaped too (no hidden file, no `..`).
pub fn file_component(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for (i, b) in name.bytes().enumerate() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (b == b'.' && i > 0) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cdmasim-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_fifo_a_device_and_a_folder_are_refused_without_blocking() {
        let d = scratch("inputs");
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = open_input(&fifo).unwrap_err();
        assert!(e.to_string().contains("a FIFO, not a regular file"), "{e}");
        let e = read_input(Path::new("/dev/zero"), 10, "trace").unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
        let e = open_input(&d).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_file_over_its_limit_is_refused_and_one_at_it_is_read() {
        let d = scratch("limit");
        let p = d.join("t.txt");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_input(&p, 10, "trace").unwrap(), b"0123456789");
        let e = read_input(&p, 9, "DRC trace").unwrap_err();
        assert!(e.to_string().starts_with("10 bytes; a DRC trace is at most 9 bytes"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_uncommitted_output_leaves_the_previous_file_whole() {
        let d = scratch("output");
        let dest = d.join("trace.txt");
        write_output(&dest, b"first, complete\n").unwrap();
        {
            let mut o = Output::create(&dest).unwrap();
            o.write_all(b"second, cut short").unwrap();
            // Dropped without commit, as on an error.
        }
        assert_eq!(std::fs::read(&dest).unwrap(), b"first, complete\n");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "the temporary file is gone");
        // A killed writer's temporary file (a process that no longer runs).
        let stale = d.join(".trace.txt.cdmasim-4294967.tmp");
        std::fs::write(&stale, b"half").unwrap();
        write_output(&dest, b"third\n").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"third\n");
        assert!(!stale.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn names_become_distinct_file_names_inside_their_folder() {
        assert_eq!(file_component("x/y"), "x%2Fy");
        assert_eq!(file_component("x_y"), "x_y");
        assert_eq!(file_component("r1-r2.up"), "r1-r2.up");
        assert_eq!(file_component(".."), "%2E.");
        assert_eq!(file_component("é"), "%C3%A9");
        assert_ne!(file_component("a b"), file_component("a_b"));
    }
}
