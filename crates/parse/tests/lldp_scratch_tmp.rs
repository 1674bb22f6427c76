#[test]
fn dump() {
    for f in std::fs::read_dir("tests/fixtures/lldp").unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "md") { continue; }
        let text = std::fs::read_to_string(&p).unwrap();
        let r = fabcheck_parse::lldp::parse(&text);
        println!("=== {}", p.display());
        match r {
            Ok(v) => {
                println!("format {:?} n={} adv={}", v.value.format, v.value.neighbors.len(), v.value.advertised.len());
                for n in v.value.neighbors.iter().chain(v.value.advertised.iter()).take(40) { println!("  {:?}", n); }
                for w in &v.warnings { println!("  W {} {}", w.line, w.message); }
            }
            Err(e) => println!("ERR {e}"),
        }
    }
}
