//! Reading a scenario file's tables: the toolkit every hop kind's tables
//! use, below the kinds so that each keeps its tables in its own folder.
//! `reader` (TOML values with their line and field), `units` (exact
//! decimal quantities with units), `error` (file:line:field errors),
//! `limits`, `kind` (trait `KindTables` and the `Resolver`), `queue` and
//! `drc` (the `queue` and `drc` keys several kinds take), and `link` (the
//! plain link's `[[link]]` tables). The whole file is read in `scenario`.

pub(crate) mod drc;
pub mod error;
pub mod keys;
pub(crate) mod kind;
pub mod limits;
pub(crate) mod link;
pub(crate) mod queue;
pub(crate) mod reader;
pub mod units;
