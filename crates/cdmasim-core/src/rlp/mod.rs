//! The radio link protocol of IS-2000 (RLP3, IS-707-A-1.10) over frames
//! that fail: `arq` (one direction's buffers and NAK rounds, sans I/O),
//! `buffer` (the network side's per-mobile queue in front of the forward
//! sender),
//! `link` (both directions as one hop on a 20 ms frame clock),
//! `frame_errors` (trait; `iid`, `rayleigh`), `meter` (buffer occupancy and
//! ON-time distributions). Dziong et al. §3.3, §4.2, Table 1.

pub mod arq;
pub mod buffer;
pub mod frame_errors;
pub mod iid;
pub mod keys;
pub mod link;
pub mod meter;
pub mod rayleigh;
pub mod rows;
pub(crate) mod tables;
