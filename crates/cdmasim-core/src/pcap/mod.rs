//! Packet captures: the simulator's pcap writer, a streaming pcap/pcapng
//! reader, header decoding into borrowed views, and a tcptrace-compatible TCP
//! connection analysis with the loss-period, checksum and throughput-model
//! figures of Lee and the one-way-delay matching of Liu et al. (docs/pcap.md).

pub mod analysis;
pub mod checksum;
pub mod decode;
pub mod error;
pub mod reader;
#[cfg(test)]
mod testutil;
#[cfg(test)]
mod tests;
pub mod write;

pub use analysis::{analyze_bytes, analyze_file, analyze_file_json, owd_files_json, AnalyzeOptions, Analysis};
pub use error::PcapError;
pub use reader::{FileReader, Reader, Record, Records};
