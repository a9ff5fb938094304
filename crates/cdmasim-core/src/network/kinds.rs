//! The hop kinds, listed once. `hop_kinds!` makes from the list the
//! scenario's `HopSpec` (one variant per kind, holding the kind's
//! configuration; `kind` names it in the spec's JSON), the network's
//! `AnyHop` (the built hops, dispatched by `match`, never by a virtual
//! call, on the per-packet path), with everything that goes from one to
//! the other, `Kinds`, every kind's scenario tables (`KindTables`, in the
//! kind's folder) in the order their hops are added, and `HopRows`, the
//! result tables the kinds bring (each row type defined, with its table's
//! description, in its kind's folder: `result::HopTable`). Adding a kind is
//! one line here (docs/ARCHITECTURE.md, "Adding a radio hop").
//!
//! The first kind, the point-to-point link, is the hop of the per-packet
//! hot path (every wired hop of every scenario): its arm is the one inlined
//! into the network's loop. The others do slots, schedulers and grants per
//! call, beside which a call costs nothing, and are called out of line.

use crate::cdma2000::cell::Cell;
use crate::cdma2000::config::CellConfig;
use crate::cdma2000::tables::CellTables;
use crate::engine::Time;
use crate::evdo::config::RanConfig;
use crate::evdo::ran::EvdoRan;
use crate::evdo::tables::EvdoTables;
use crate::is2000::config::Is2000Config;
use crate::is2000::sector::Is2000Sector;
use crate::is2000::tables::Is2000Tables;
use crate::net::hop::{BuildContext, BuildError, Ends, HopConfig, HopKind, Samples};
use crate::net::link::LinkSpec;
use crate::net::{Headers, Hop, HopEvent, Link, Packet, Port};
use crate::cdma2000::rows::{CellResult, MobileResult};
use crate::evdo::rows::{SectorResult, UserResult};
use crate::is2000::rows::Is2000Result;
use crate::net::ppp::rows::PppResult;
use crate::net::queue::QueueResult;
use crate::result::{Rows, Table};
use crate::rlp::rows::RadioLinkResult;
use crate::input::kind::KindTables;
use crate::input::link::LinkTables;
use crate::rlp::link::{RadioLinkConfig, RlpLink};
use crate::rlp::tables::RadioLinkTables;
use serde::{Deserialize, Serialize};

macro_rules! hop_kinds {
    // Every arm.
    (@each $self:expr, $x:ident => $e:expr; $lv:ident; $( [$(#[$a:meta])*] $v:ident )*) => {
        match $self {
            AnyHop::$lv($x) => $e,
            $( $(#[$a])* AnyHop::$v($x) => $e, )*
        }
    };
    // Every arm but the inlined kind's.
    (@others $self:expr, $x:ident => $e:expr; $lv:ident; $( [$(#[$a:meta])*] $v:ident )*) => {
        match $self {
            AnyHop::$lv(_) => unreachable!("the inlined kind takes its own arm"),
            $( $(#[$a])* AnyHop::$v($x) => $e, )*
        }
    };
    (
        inline $lv:ident($lc:ty => $lh:ty) = $lt:literal, $lf:ident: $ltab:ty
            $(, rows [$( $(#[$lra:meta])* $lrf:ident: $lrt:ty ),*])?;
        $( $(#[$a:meta])* $v:ident($c:ty => $h:ty) = $t:literal, $f:ident: $tab:ty
            $(, rows [$( $(#[$ra:meta])* $rf:ident: $rt:ty ),*])?; )*
    ) => {
        /// The hops' result tables, each the rows of one type the kinds
        /// report (`Hop::report`), in the order of the hops.
        #[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
        pub struct HopRows {
            $($( $(#[$lra])* #[serde(default)] pub $lrf: Vec<$lrt>, )*)?
            $($($( $(#[$ra])* #[serde(default)] pub $rf: Vec<$rt>, )*)?)*
        }

        impl HopRows {
            /// Every table's rows out of what the hops reported.
            pub fn take(rows: &mut Rows) -> HopRows {
                let out = HopRows {
                    $($( $(#[$lra])* $lrf: rows.take(), )*)?
                    $($($( $(#[$ra])* $rf: rows.take(), )*)?)*
                };
                rows.assert_taken();
                out
            }
        }

        /// Each table's row type, in `HopRows`' order: no two tables may
        /// share one (`Rows` keeps rows by type).
        #[cfg(test)]
        pub(crate) fn hop_row_types() -> Vec<(&'static str, std::any::TypeId)> {
            #[allow(unused_mut)]
            let mut types = Vec::new();
            $($( $(#[$lra])* types.push((stringify!($lrf), std::any::TypeId::of::<$lrt>())); )*)?
            $($($( $(#[$ra])* types.push((stringify!($rf), std::any::TypeId::of::<$rt>())); )*)?)*
            types
        }

        /// The hops' tables as the schema lists them, in `HopRows`' order.
        pub fn hop_tables() -> Vec<Table> {
            #[allow(unused_mut)]
            let mut tables = Vec::new();
            $($( $(#[$lra])* tables.push(Table::of::<$lrt>(stringify!($lrf))); )*)?
            $($($( $(#[$ra])* tables.push(Table::of::<$rt>(stringify!($rf))); )*)?)*
            tables
        }

        /// Every kind's scenario tables, as read (presets add to them too).
        #[derive(Default)]
        pub(crate) struct Kinds {
            pub $lf: $ltab,
            $( $(#[$a])* pub $f: $tab, )*
        }

        impl Kinds {
            /// Every kind, in the order their hops are listed: the file's
            /// links first, then each radio kind's.
            pub fn all(&mut self) -> Vec<&mut dyn KindTables<HopSpec>> {
                #[allow(unused_mut)]
                let mut all: Vec<&mut dyn KindTables<HopSpec>> = vec![&mut self.$lf];
                $( $(#[$a])* all.push(&mut self.$f); )*
                all
            }
        }

        impl From<$lc> for HopSpec {
            fn from(c: $lc) -> Self {
                HopSpec::$lv(c)
            }
        }
        $(
            $(#[$a])*
            impl From<$c> for HopSpec {
                fn from(c: $c) -> Self {
                    HopSpec::$v(c)
                }
            }
        )*

        /// One hop of a scenario, as validated: its kind and configuration.
        #[derive(Clone, Debug, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum HopSpec {
            #[serde(rename = $lt)]
            $lv($lc),
            $( $(#[$a])* #[serde(rename = $t)] $v($c), )*
        }

        /// A built hop.
        pub enum AnyHop {
            $lv($lh),
            $( $(#[$a])* $v(Box<$h>), )*
        }

        impl HopSpec {
            /// The kind's configuration, as every kind describes itself.
            pub fn config(&self) -> &dyn HopConfig {
                match self {
                    HopSpec::$lv(c) => c,
                    $( $(#[$a])* HopSpec::$v(c) => c, )*
                }
            }

            /// Build the hop.
            pub fn build(&self, cx: &BuildContext) -> Result<AnyHop, BuildError> {
                Ok(match self {
                    HopSpec::$lv(c) => AnyHop::$lv(<$lh as HopKind>::build(c, cx)?),
                    $( $(#[$a])* HopSpec::$v(c) => AnyHop::$v(Box::new(<$h as HopKind>::build(c, cx)?)), )*
                })
            }
        }

        impl AnyHop {
            #[inline(never)]
            fn other_offer(&mut self, now: Time, port: Port, pkt: Packet, hd: &mut Headers) {
                hop_kinds!(@others self, h => h.offer(now, port, pkt, hd); $lv; $( [$(#[$a])*] $v )*)
            }
            #[inline(never)]
            fn other_poll(&mut self) -> Option<HopEvent> {
                hop_kinds!(@others self, h => h.poll(); $lv; $( [$(#[$a])*] $v )*)
            }
            #[inline(never)]
            fn other_deadline(&self) -> Option<Time> {
                hop_kinds!(@others self, h => h.deadline(); $lv; $( [$(#[$a])*] $v )*)
            }
            #[inline(never)]
            fn other_on_timer(&mut self, now: Time, hd: &mut Headers) {
                hop_kinds!(@others self, h => h.on_timer(now, hd); $lv; $( [$(#[$a])*] $v )*)
            }
            #[inline(never)]
            fn other_ends(&self, port: Port) -> Ends {
                hop_kinds!(@others self, h => h.ends(port); $lv; $( [$(#[$a])*] $v )*)
            }
        }

        /// The inlined kind's arm in line, the others out of line; the
        /// methods off the per-packet path by one plain `match`.
        impl Hop for AnyHop {
            #[inline(always)]
            fn offer(&mut self, now: Time, port: Port, pkt: Packet, hd: &mut Headers) {
                match self {
                    AnyHop::$lv(h) => h.offer(now, port, pkt, hd),
                    _ => self.other_offer(now, port, pkt, hd),
                }
            }
            #[inline(always)]
            fn poll(&mut self) -> Option<HopEvent> {
                match self {
                    AnyHop::$lv(h) => h.poll(),
                    _ => self.other_poll(),
                }
            }
            #[inline(always)]
            fn deadline(&self) -> Option<Time> {
                match self {
                    AnyHop::$lv(h) => h.deadline(),
                    _ => self.other_deadline(),
                }
            }
            #[inline(always)]
            fn on_timer(&mut self, now: Time, hd: &mut Headers) {
                match self {
                    AnyHop::$lv(h) => h.on_timer(now, hd),
                    _ => self.other_on_timer(now, hd),
                }
            }
            #[inline(always)]
            fn ends(&self, port: Port) -> Ends {
                match self {
                    AnyHop::$lv(h) => h.ends(port),
                    _ => self.other_ends(port),
                }
            }
            fn ports(&self) -> Port {
                hop_kinds!(@each self, h => h.ports(); $lv; $( [$(#[$a])*] $v )*)
            }
            fn place(&self, port: Port) -> String {
                hop_kinds!(@each self, h => h.place(port); $lv; $( [$(#[$a])*] $v )*)
            }
            fn drops(&self) -> u64 {
                hop_kinds!(@each self, h => h.drops(); $lv; $( [$(#[$a])*] $v )*)
            }
            fn packets_inside(&self) -> u64 {
                hop_kinds!(@each self, h => h.packets_inside(); $lv; $( [$(#[$a])*] $v )*)
            }
            fn sample(&self, out: &mut impl Samples) {
                hop_kinds!(@each self, h => h.sample(out); $lv; $( [$(#[$a])*] $v )*)
            }
            fn report(&self, horizon: Time, rows: &mut Rows) {
                hop_kinds!(@each self, h => h.report(horizon, rows); $lv; $( [$(#[$a])*] $v )*)
            }
            fn finish(&mut self, now: Time, hd: &mut Headers) {
                hop_kinds!(@each self, h => h.finish(now, hd); $lv; $( [$(#[$a])*] $v )*)
            }
            fn lazy(&self) -> bool {
                hop_kinds!(@each self, h => h.lazy(); $lv; $( [$(#[$a])*] $v )*)
            }
            fn tap(&mut self) -> bool {
                hop_kinds!(@each self, h => h.tap(); $lv; $( [$(#[$a])*] $v )*)
            }
            fn capture_port(&self, port: Port) -> Port {
                hop_kinds!(@each self, h => h.capture_port(port); $lv; $( [$(#[$a])*] $v )*)
            }
        }
    };
}

// Each kind: its variant (configuration => built hop) = its name in the
// spec's JSON, its field in `Kinds` with its scenario tables, and the
// result tables it brings (their names, and the types of their rows; any
// kind may report rows of any table listed).
hop_kinds! {
    inline Link(LinkSpec => Link) = "link", link: LinkTables, rows [queues: QueueResult, ppp: PppResult];
    Evdo(RanConfig => EvdoRan) = "evdo", evdo: EvdoTables, rows [users: UserResult, sectors: SectorResult];
    Cell(CellConfig => Cell) = "cdma2000_cell", cell: CellTables, rows [cells: CellResult, mobiles: MobileResult];
    Rlp(RadioLinkConfig => RlpLink) = "radio_link", radio_link: RadioLinkTables, rows [radio_links: RadioLinkResult];
    Is2000(Is2000Config => Is2000Sector) = "is2000_sector", is2000: Is2000Tables, rows [is2000: Is2000Result];
    #[cfg(test)]
    ToyRadio(crate::toy_radio::ToyRadioConfig => crate::toy_radio::ToyRadio) = "toy_radio", toy_radio: crate::toy_radio::tables::ToyRadioTables, rows [#[cfg(test)] toy_users: crate::toy_radio::rows::ToyUserResult];
}

#[cfg(test)]
mod tests {
    /// `Rows` keeps rows by type: a type named by two tables would give
    /// all its rows to the first.
    #[test]
    fn no_two_tables_share_a_row_type() {
        let types = super::hop_row_types();
        for (i, (name, t)) in types.iter().enumerate() {
            assert!(types[..i].iter().all(|(_, u)| u != t), "{name}: its row type is another table's");
        }
        assert!(types.len() >= 9);
    }
}
