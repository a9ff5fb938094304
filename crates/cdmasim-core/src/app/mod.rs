//! Applications. Bulk transfer is the TCP sender's application limit (see
//! tcp::sender); constant-bit-rate datagram streams live here.

pub mod cbr;
pub use cbr::{CbrSink, CbrSource};
