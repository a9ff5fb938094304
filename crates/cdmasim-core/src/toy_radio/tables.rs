//! `[[toy_radio]]` and `[[toy_user]]` tables → [`ToyRadioConfig`].

use super::keys::{self, UP_RATE_BPS};
use super::ToyRadioConfig;
use crate::engine::Time;
use crate::input::error::ScenarioError;
use crate::input::kind::{KindTables, Names, Resolver};
use crate::input::reader::{Named, Res, Val};
use crate::net::link::LinkSpec;

struct RawRadio {
    name: Named,
    node: Named,
    delay: Time,
    up_rate_bps: u64,
}

struct RawUser {
    name: Named,
    radio: Named,
}

/// The `[[toy_radio]]` and `[[toy_user]]` tables.
#[derive(Default)]
pub(crate) struct ToyRadioTables {
    radios: Vec<RawRadio>,
    users: Vec<RawUser>,
}

impl<H: From<LinkSpec> + From<ToyRadioConfig>> KindTables<H> for ToyRadioTables {
    fn tables(&self) -> &'static [&'static str] {
        &["toy_radio", "toy_user"]
    }

    fn keys(&self) -> &'static [crate::input::keys::Described] {
        keys::TABLES
    }

    fn parse(&mut self, table: &str, v: &Val) -> Res<()> {
        if table == "toy_radio" {
            let t = v.keys(keys::RADIO)?;
            self.radios.push(RawRadio {
                name: Named::new(t.name("name")?),
                node: Named::new(t.name("node")?),
                delay: t.req("delay")?.time()?,
                up_rate_bps: t.or("up_rate", UP_RATE_BPS, |v| v.positive_rate())?,
            });
        } else {
            let t = v.keys(keys::USER)?;
            self.users.push(RawUser { name: Named::new(t.name("name")?), radio: Named::new(t.name("radio")?) });
        }
        Ok(())
    }

    /// Each radio with its users, in the file's order: the users' nodes
    /// and reverse links first (`Resolver::add_terminal`), then the radio.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        let mut names = Names::new("toy radio");
        for (i, r) in self.radios.iter().enumerate() {
            names.add(&cx.file, &r.name, i)?;
        }
        let mut users = vec![Vec::new(); self.radios.len()];
        for u in &self.users {
            users[names.get(&cx.file, &u.radio)?].push(u);
        }
        for (r, users) in self.radios.iter().zip(users) {
            let base = cx.node(&r.node)?;
            let up = LinkSpec { rate_bps: r.up_rate_bps, delay: r.delay, ..Default::default() };
            let mut attached = Vec::new();
            for u in users {
                let node = cx.add_terminal("user", &u.name, base, up.clone())?;
                attached.push((u.name.name.clone(), node));
            }
            cx.hops.push(H::from(ToyRadioConfig { name: r.name.name.clone(), base, users: attached, delay: r.delay }));
        }
        Ok(())
    }
}
