//! The keys of the `[[toy_radio]]` and `[[toy_user]]` tables, each
//! described once (`input::keys`).

use crate::input::keys::{self, Described, Key};

/// A user's reverse link when its radio names no `up_rate`, bit/s.
pub(crate) const UP_RATE_BPS: u64 = 1_000_000;

pub(crate) const RADIO: &[Key] = &[
    Key::required("name", "The radio."),
    Key::required("node", "Its base station's node."),
    Key::required("delay", "Every packet's time through the radio, base station to user; also the delay of the users' reverse links."),
    Key::value("up_rate", || keys::rate(UP_RATE_BPS), "The rate of each user's reverse link `USER.up`."),
];

pub(crate) const USER: &[Key] = &[
    Key::required("name", "The user: a node of its own, with a reverse link `USER.up` to its radio's node."),
    Key::required("radio", "The radio serving it."),
];

pub(crate) const TABLES: &[Described] = &[Described::new("toy_radio", "`[[toy_radio]]`", RADIO), Described::new("toy_user", "`[[toy_user]]`", USER)];
