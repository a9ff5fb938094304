//! The registry of hop kinds' scenario tables: one field per kind, and the
//! order in which the kinds add their hops.

use super::cell::CellTables;
use super::is2000::Is2000Tables;
use super::kind::KindTables;
use super::link::LinkTables;
use super::radio_link::RadioLinkTables;
use super::sector::EvdoTables;

/// Every kind's tables, as read. Adding a kind: a field here and its entry
/// in `all` (the order in which kinds add their hops).
#[derive(Default)]
pub(crate) struct Kinds {
    pub link: LinkTables,
    pub evdo: EvdoTables,
    pub cell: CellTables,
    pub radio_link: RadioLinkTables,
    pub is2000: Is2000Tables,
    #[cfg(test)]
    pub delay: crate::delay_hop::DelayTables,
}

impl Kinds {
    /// Every kind, in the order their hops are listed: the file's links
    /// first, then each radio kind's.
    pub fn all(&mut self) -> Vec<&mut dyn KindTables> {
        let all: Vec<&mut dyn KindTables> = vec![&mut self.link, &mut self.evdo, &mut self.cell, &mut self.radio_link, &mut self.is2000];
        #[cfg(test)]
        let all = all.into_iter().chain([&mut self.delay as &mut dyn KindTables]).collect();
        all
    }
}
