//! Series that stream to a spool file (`RunOptions::series_spool`) are the
//! series a run keeps in memory, point for point and in the same order, and
//! the rest of the result does not change: every example scenario, cut to
//! a few seconds and sampled every half millisecond (so series cross the
//! spool's chunk size), with every TCP flow's cwnd traced.

use cdmasim_core::engine::Time;
use cdmasim_core::scenario;
use cdmasim_core::sim::{self, series_spool::CHUNK_POINTS, RunOptions, Series};
use std::io::{Read, Seek, SeekFrom};

fn read_spool(path: &std::path::Path, spooled: &[sim::series_spool::Spooled]) -> Vec<Series> {
    let mut f = std::fs::File::open(path).unwrap();
    spooled
        .iter()
        .map(|s| {
            let mut out = Series { metric: s.metric.clone(), subject: s.subject.clone(), ..Default::default() };
            for &(offset, n) in &s.chunks {
                let mut buf = vec![0u8; 16 * n as usize];
                f.seek(SeekFrom::Start(offset)).unwrap();
                f.read_exact(&mut buf).unwrap();
                let x: Vec<f64> = buf.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
                out.t_s.extend_from_slice(&x[..n as usize]);
                out.value.extend_from_slice(&x[n as usize..]);
            }
            out
        })
        .collect()
}

#[test]
fn streamed_series_are_the_series_kept_in_memory() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let dir = std::env::temp_dir().join(format!("cdmasim-spool-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<_> = std::fs::read_dir(&examples).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    let (mut runs, mut crossed) = (0, false);
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".toml") || name.starts_with("sweep_") || name.starts_with("emulate_") {
            continue;
        }
        let mut spec = scenario::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        spec.duration = spec.duration.min(Time(3_000_000_000));
        spec.sample_interval = Some(Time(500_000));
        for f in spec.flows.iter_mut() {
            if let scenario::AppSpec::Bulk { tcp, .. } = &mut f.app {
                tcp.trace_cwnd = true;
            }
        }
        let kept = sim::run(&spec, RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let spool = dir.join(format!("{name}.spool"));
        let streamed = sim::run(&spec, RunOptions { series_spool: Some(spool.clone()), ..Default::default() }).unwrap();
        let (file, index) = streamed.spooled.clone().expect("an index of the spool");
        assert_eq!(file, spool);
        assert!(streamed.series.is_empty(), "{name}: nothing kept in memory");
        crossed |= index.iter().any(|s| s.chunks.len() > 1 && s.chunks[0].1 == CHUNK_POINTS as u64);
        let back = read_spool(&spool, &index);
        assert_eq!(back.len(), kept.series.len(), "{name}: series count");
        for (a, b) in back.iter().zip(&kept.series) {
            assert_eq!((&a.metric, &a.subject), (&b.metric, &b.subject), "{name}: order");
            assert!(a.t_s == b.t_s && a.value == b.value, "{name}: {} {} differs", a.metric, a.subject);
        }
        // Everything else is the same run.
        let strip = |mut r: sim::RunResult| {
            r.series.clear();
            r.spooled = None;
            r
        };
        assert_eq!(strip(streamed), strip(kept), "{name}");
        runs += 1;
    }
    assert!(runs >= 8, "examples run: {runs}");
    assert!(crossed, "some series spanned several chunks");
    std::fs::remove_dir_all(&dir).unwrap();
}
