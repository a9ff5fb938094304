//! The configuration of an IS-2000 sector (Dziong et al.): its users' air links,
//! the MAC's SCH grants, power and codes, and the MAC states.

use crate::net::NodeId;
use super::dormancy::DormancyConfig;
use super::radio::RadioConfig;
use crate::engine::{Time, NS_PER_MS, NS_PER_SEC};
use crate::net::hop::{Ends, HopConfig};
use crate::rlp::link::RadioLinkConfig;
use serde::{Deserialize, Serialize};

/// When the MAC asks for and grants an SCH (the cdma2000 cell's demand life cycle).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MacConfig {
    /// A user asks for an SCH when more than this waits in its forward new-data buffer.
    pub threshold_bytes: u64,
    /// Request to grant (IS-2000's SCRM → ESCAM signalling).
    pub grant_delay: Time,
    /// Longest grant; released earlier when the new-data buffer empties.
    pub burst: Time,
    /// The highest SCH rate (16X: 153.6 kb/s).
    pub max_sch_bps: u64,
    /// What a request denied for power or Walsh codes does to the
    /// lower-priority requests behind it.
    #[serde(default)]
    pub after_denial: AfterDenial,
}

/// Dziong et al. §2 serves qualified users in priority order "as long as
/// the power resource is available": a user denied for lack of power
/// ends the pass (`Stop`, the default). `Continue` goes on down the list,
/// so a lower-priority user with a better channel may still get a low
/// rate from what is left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterDenial {
    #[default]
    Stop,
    Continue,
}

impl Default for MacConfig {
    /// Our assumptions (the paper publishes none): a 1 KB threshold, 100 ms
    /// of signalling, bursts of up to 2 s, 16X at most.
    fn default() -> Self {
        MacConfig {
            threshold_bytes: 1_000,
            grant_delay: 100 * NS_PER_MS,
            burst: 2 * NS_PER_SEC,
            max_sch_bps: 153_600,
            after_denial: AfterDenial::Stop,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Is2000User {
    pub name: String,
    pub node: NodeId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Is2000Config {
    pub name: String,
    /// The network-side node (the PCF/BSC).
    pub node: NodeId,
    pub users: Vec<Is2000User>,
    /// Every user's air link: rates are the FCH's (9.6 kb/s each way; the
    /// MAC adds SCHs), delay, frame errors and RLP (nodes and name unused).
    pub link: RadioLinkConfig,
    pub mac: MacConfig,
    pub radio: RadioConfig,
    pub dormancy: DormancyConfig,
}

/// Port 2k: the sector to user k (forward), 2k + 1 back (reverse).
impl HopConfig for Is2000Config {
    fn ports(&self) -> Vec<Ends> {
        let node = self.node;
        self.users.iter().flat_map(|u| [Ends { from: node, to: u.node }, Ends { from: u.node, to: node }]).collect()
    }

    /// The fraction of the power in use.
    fn sampled_series(&self) -> u64 {
        1
    }

    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        Some((self.node, self.users.iter().map(|u| u.node).collect()))
    }
}
