//! Scenarios given as data (a Python dict, a JSON document) rather than a
//! file: rendered to TOML text so that they go through exactly the same
//! parser and validation as files do.

/// JSON object text → TOML document text. Fails on `null` (TOML has none)
/// or on a top level that is not an object.
pub fn toml_from_json(json: &str) -> Result<String, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("invalid JSON: {e}"))?;
    if !value.is_object() {
        return Err("a scenario must be a table (a dict / JSON object)".into());
    }
    let table = toml::Table::try_from(value).map_err(|e| format!("cannot express as TOML: {e}"))?;
    toml::to_string(&table).map_err(|e| format!("cannot express as TOML: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dict_scenarios_parse_like_files() {
        let json = r#"{"preset": "dumbbell", "simulation": {"duration": "5s"},
            "dumbbell": {"flows": 2, "bottleneck_rate": "1Mbps", "bottleneck_delay": "10ms",
                         "queue": {"kind": "droptail", "limit": "20pkt"}}}"#;
        let text = toml_from_json(json).unwrap();
        let spec = super::super::parse_str(&text, "<dict>").unwrap();
        assert_eq!(spec.flows.len(), 2);
        assert!(toml_from_json("[1, 2]").is_err());
        assert!(toml_from_json(r#"{"simulation": null}"#).is_err());
    }

    /// A dict handed to the core as JSON reads as its TOML would, and one
    /// with no TOML form is refused as the whole scenario's, in one line.
    #[test]
    fn a_dict_is_parsed_from_its_json() {
        let json = r#"{"preset": "dumbbell", "simulation": {"duration": "5s", "seed": 4},
            "dumbbell": {"flows": 3, "bottleneck_rate": "1Mbps", "bottleneck_delay": "10ms",
                         "queue": {"kind": "droptail", "limit": "20pkt"}}}"#;
        let from_json = super::super::parse_json_seeded(json, "<dict>", Some(9)).unwrap();
        let from_toml = super::super::parse_str_seeded(&toml_from_json(json).unwrap(), "<dict>", Some(9)).unwrap();
        assert_eq!(serde_json::to_string(&from_json).unwrap(), serde_json::to_string(&from_toml).unwrap());
        assert_eq!(from_json.seed, 9);
        let e = super::super::parse_json_seeded(r#"{"simulation": null}"#, "<dict>", None).unwrap_err();
        assert_eq!((e.file.as_str(), e.line, e.field.as_str()), ("<dict>", 0, ""));
        assert!(e.message.starts_with("cannot express as TOML"), "{}", e.message);
        let e = super::super::parse_json_seeded("[1]", "<dict>", None).unwrap_err();
        assert!(e.message.contains("a scenario must be a table"), "{}", e.message);
    }
}
