#[test]
fn dump() {
    let mut f = fabcheck_lab::build::build_fabric(8, 2, 3);
    for x in [
        "spine1=ecn-off@swp2",
        "spine1=cnp-queue@swp1",
        "spine1=pfc-off@swp1",
        "spine1=dscp-map",
        "leaf2=ecn-threshold@Ethernet3/1",
        "leaf2=cnp-queue@Ethernet4/1",
        "leaf1=ecn-off@Ethernet8",
        "leaf2=lldp-missing@Ethernet2/1",
    ] {
        fabcheck_lab::faults::apply_to_fabric(&mut f, &x.parse().unwrap()).unwrap();
    }
    let n = f.hosts.len();
    let t = std::time::Duration::from_secs(1);
    for (d, c) in [
        (n + 2, "nv config show -o yaml"),
        (n + 2, "nv show qos roce"),
        (n + 1, "show running-config"),
        (n, "show runningconfiguration all"),
        (n + 1, "show lldp neighbors detail"),
    ] {
        let o = fabcheck_lab::shell::exec_on(&f, d, c, t);
        std::fs::write(format!("/tmp/labdump/f_{}", c.replace(' ', "_")), o.stdout).unwrap();
    }
}
