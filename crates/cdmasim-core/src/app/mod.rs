//! Applications. Bulk transfer is the TCP sender's application limit (see
//! tcp::sender); constant-bit-rate datagram streams and the HTTP/1.0
//! browser (with its web workload) live here.

pub mod cbr;
pub mod http;
pub mod workload;
pub use cbr::{CbrSink, CbrSource};
