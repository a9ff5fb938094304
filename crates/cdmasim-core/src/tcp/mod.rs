//! TCP endpoints as deterministic state machines without I/O (in the manner
//! of smoltcp and quinn-proto): the world hands them segments and the time,
//! and pulls the segments they want to send. Sequence numbers are 64-bit
//! byte offsets; the SYN takes sequence number 0, so payload byte k has
//! sequence number k + 1.

pub mod cc;
pub mod config;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod rwnd;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;
