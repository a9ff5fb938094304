//! Development aid: print the JSON report of a capture (the product's entry
//! point is `cdmasim pcap analyze`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: pcap_json FILE");
    let opts = cdmasim_core::pcap::AnalyzeOptions::default();
    match cdmasim_core::pcap::analyze_file(std::path::Path::new(&path), &opts) {
        Ok(mut a) => println!("{}", serde_json::to_string_pretty(&a.report(&opts)).unwrap()),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
