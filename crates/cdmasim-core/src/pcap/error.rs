//! Typed capture-reading errors. Every variant that concerns a record names
//! the record (1-based, as tcpdump and tcptrace number them) and the byte
//! offset of its header in the file, so a user can find it with `xxd -s`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PcapError {
    /// The file could not be opened or read.
    Io { path: String, msg: String },
    /// The file is shorter than a file header.
    TooShort { len: u64 },
    /// The first four bytes are neither a pcap nor a pcapng magic number.
    BadMagic { magic: u32 },
    /// A pcap record header or pcapng block claims a length that cannot be
    /// right (larger than the file allows or than any sane snaplen).
    AbsurdLength { record: u64, offset: u64, len: u64, what: &'static str },
    /// A structurally invalid pcapng block (bad trailer length, unknown
    /// interface id, byte-order magic that is not 0x1A2B3C4D, ...).
    BadBlock { record: u64, offset: u64, what: &'static str },
    /// A link type the decoder does not understand.
    UnsupportedLinkType { linktype: u32 },
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Io { path, msg } => write!(f, "{path}: {msg}"),
            PcapError::TooShort { len } => {
                write!(f, "file is {len} bytes, too short for a pcap or pcapng header")
            }
            PcapError::BadMagic { magic } => write!(
                f,
                "bad magic number 0x{magic:08x}: not a pcap (a1b2c3d4/a1b23c4d) or pcapng (0a0d0d0a) file"
            ),
            PcapError::AbsurdLength { record, offset, len, what } => write!(
                f,
                "record {record} at byte {offset}: {what} {len} is absurd (corrupt file?)"
            ),
            PcapError::BadBlock { record, offset, what } => {
                write!(f, "record {record} at byte {offset}: {what}")
            }
            PcapError::UnsupportedLinkType { linktype } => {
                write!(f, "unsupported link type {linktype}")
            }
        }
    }
}

impl std::error::Error for PcapError {}
