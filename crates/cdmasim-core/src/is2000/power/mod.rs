//! What forward-link power a channel costs a user of an IS-2000 sector, by
//! where the user is (Dziong et al. §4.2: users uniform in the cell, their place
//! fixed while a page downloads and drawn anew during the think time; the
//! power a rate needs at a place "from link level simulations" the paper
//! does not publish). One trait, one file per model:
//! - `link_budget`: the documented model of docs/is2000_power.md, a
//!   hexagonal layout with path loss, shadowing and the Eb/Nt each rate
//!   needs (the default);
//! - `distance_law`: a simpler law (`model = "distance"`), max(p_min, p_edge·d^γ).
//!
//! Both models' cost of a rate is a product: the share a 9.6 kb/s channel
//! needs at the place (drawn once per place) times a factor of the rate
//! alone, so a place is summed up by one number, its *unit share*.

pub mod distance_law;
pub mod link_budget;

use crate::engine::Rng;
use serde::{Deserialize, Serialize};

pub use distance_law::DistanceLaw;
pub use link_budget::{LinkBudget, LinkBudgetModel};

/// A model of the power a forward channel needs, as a share of the
/// sector's maximum transmit power.
pub trait PowerModel {
    /// The share a 9.6 kb/s channel needs at a place drawn uniformly over
    /// the cell (the place's unit share).
    fn draw_unit_share(&self, rng: &mut Rng) -> f64;
    /// How many unit shares a channel of `bps` (k × 9.6 kb/s) needs.
    /// A constant of the model, as `overhead` is: `Is2000Budget::new` asks
    /// both once.
    fn rate_factor(&self, bps: u64) -> f64;
    /// The share pilot, sync and paging take.
    fn overhead(&self) -> f64;
}

/// Which model, with its own configuration (`[is2000_sector] power = {
/// model = "link_budget" | "distance", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum PowerConfig {
    LinkBudget(LinkBudget),
    Distance(DistanceLaw),
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig::LinkBudget(LinkBudget::default())
    }
}

impl PowerConfig {
    pub fn build(&self) -> Box<dyn PowerModel + Send> {
        match self {
            PowerConfig::LinkBudget(c) => Box::new(LinkBudgetModel::new(c)),
            PowerConfig::Distance(m) => Box::new(m.clone()),
        }
    }
}
