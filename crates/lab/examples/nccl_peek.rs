use fabcheck_lab::build::healthy_host;
use fabcheck_lab::faults::{Fault, apply};
use std::time::Duration;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let mut hosts: Vec<_> = (0..n).map(healthy_host).collect();
    for f in &args[3..] {
        let f: Fault = f.parse().unwrap();
        let h = hosts.iter_mut().find(|h| h.name == f.host).unwrap();
        apply(h, &f).unwrap();
    }
    let out = fabcheck_lab::shell::exec(&hosts, 0, &args[2], Duration::from_secs(7));
    print!("{}", out.stdout);
    eprint!("{}", out.stderr);
    eprintln!(
        "status {} hangs {} duration {:?} marks {}",
        out.status,
        out.hangs,
        out.duration(),
        out.marks.len()
    );
}
