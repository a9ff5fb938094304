//! The core's folders keep the layers docs/ARCHITECTURE.md draws: a folder
//! (or top-level file) names only folders of layers below its own through
//! `crate::…` paths, so nothing reaches back up and no two folders name each
//! other. Test code may reach anywhere (a test of a hop may run a whole
//! scenario): test modules close their file (`#[cfg(test)] mod tests { … }`)
//! or are files of their own (`tests.rs`, `*_tests.rs`), and the source is
//! read up to the first of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Bottom to top; the folders of one layer do not name each other.
/// `input` (the scenario file's reading toolkit) sits below the
/// technologies, which keep their scenario tables in their own folders;
/// `network` lists every kind once (`hop_kinds!`), and `scenario` reads
/// the whole file.
const LAYERS: &[&[&str]] = &[
    &["engine", "files"],
    &["channel", "models", "result", "sched"],
    &["net"],
    &["app", "tcp", "pcap"],
    &["input"],
    &["rlp", "cdma2000", "evdo"],
    &["is2000"],
    &["toy_radio"],
    &["network"],
    &["scenario"],
    &["sim"],
    &["emu"],
    &["lib"],
];

/// Names that reach up, each with why it is still there. The list must
/// match what the code does: a name that goes away fails here too.
const REACHING_UP: &[(&str, &str, &str)] = &[];

fn layer_of(folder: &str) -> usize {
    LAYERS.iter().position(|l| l.contains(&folder)).unwrap_or_else(|| panic!("{folder}: in no layer of LAYERS"))
}

/// The source up to its first test module.
fn library_part(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        let rest = rest.strip_prefix("pub(crate) ").or_else(|| rest.strip_prefix("pub ")).unwrap_or(rest);
        if rest.starts_with("mod ") {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// The folders each folder names: folder -> named folder -> files.
fn names(src: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let file = p.file_name().unwrap().to_str().unwrap();
            if !file.ends_with(".rs") || file == "tests.rs" || file.ends_with("_tests.rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().to_str().unwrap().to_string();
            let folder = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            for piece in library_part(&text).split("crate::").skip(1) {
                let named: String = piece.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !named.is_empty() && named != folder {
                    out.entry(folder.clone()).or_default().entry(named).or_default().insert(rel.clone());
                }
            }
        }
    }
    out
}

#[test]
fn no_folder_names_one_of_its_own_layer_or_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut up = Vec::new();
    for (folder, named) in names(&src) {
        for (target, files) in named {
            if layer_of(&target) >= layer_of(&folder) {
                up.push((folder.clone(), target, files));
            }
        }
    }
    let found: Vec<(&str, &str)> = up.iter().map(|(f, t, _)| (f.as_str(), t.as_str())).collect();
    let allowed: Vec<(&str, &str)> = REACHING_UP.iter().map(|&(f, t, _)| (f, t)).collect();
    let report: Vec<String> = up
        .iter()
        .filter(|(f, t, _)| !allowed.contains(&(f.as_str(), t.as_str())))
        .map(|(f, t, files)| format!("{f} names {t} (layer {} of {}) in {files:?}", layer_of(t), layer_of(f)))
        .collect();
    assert!(report.is_empty(), "reaching up (docs/ARCHITECTURE.md, the layers):\n{}", report.join("\n"));
    assert_eq!(found, allowed, "REACHING_UP lists a name the code no longer makes: take it out");
}

/// docs/ARCHITECTURE.md draws these layers: its block under "The core's
/// layers", top to bottom, each line's names before its note.
#[test]
fn the_map_draws_these_layers() {
    let map = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/cdmasim/docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&map).unwrap_or_else(|e| panic!("{}: {e}", map.display()));
    let block = text.split("## The core's layers\n").nth(1).and_then(|t| t.split("```\n").nth(1)).expect("the core's layers, drawn in a code block");
    let drawn: Vec<Vec<&str>> = block
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .map(|l| l.split("  ").next().unwrap().split(',').map(str::trim).collect())
        .collect();
    let held: Vec<Vec<&str>> = LAYERS.iter().rev().map(|l| l.to_vec()).collect();
    assert_eq!(drawn, held, "docs/ARCHITECTURE.md draws other layers than LAYERS holds");
}

#[test]
fn every_folder_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().trim_end_matches(".rs").to_string();
        layer_of(&name);
    }
}

#[test]
fn the_reader_stops_at_the_test_module() {
    let text = "use crate::net::X;\n#[cfg(test)]\nfn helper() {}\n#[cfg(test)]\nmod tests {\n use crate::sim::run;\n}\n";
    let part = library_part(text);
    assert!(part.contains("crate::net") && part.contains("fn helper") && !part.contains("crate::sim"));
}
