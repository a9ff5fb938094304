//! Packet captures: writing the simulator's packets as standard pcap files
//! (and, in the analyzer, reading them).

pub mod write;
