//! The IS-2000 (cdma2000 1X) sector of Dziong et al.: what a
//! forward-link rate costs in power (`power`, by the user's place) and Walsh
//! codes (`radio`), the MAC's
//! grant budget and priority order (`budget`, plugged into the cdma2000
//! cell's demand-driven SCH life cycle), the MAC states (`dormancy`) and
//! the sector that joins them over its users' RLP links (`sector`).

pub mod budget;
pub mod config;
pub mod dormancy;
pub(crate) mod keys;
pub mod power;
pub mod radio;
pub mod rows;
pub mod sector;
pub(crate) mod tables;
