//! The packet network: packets with real header sizes, queues, links with a
//! rate schedule and random loss, and static routing.

pub mod drop;
pub mod headers;
pub mod hop;
pub mod link;
pub mod node;
pub mod packet;
pub mod ppp;
pub mod queue;
pub mod routing;

pub use drop::DropReason;
pub use hop::{Hop, HopEvent, Port};
pub use link::Link;
pub use node::NodeId;
pub use headers::Headers;
pub use packet::{Body, HeaderRef, Packet, SackBlocks, TcpFlags, TcpHeader};
pub use queue::Queue;
