//! The example inventories of Ansible's documentation (see fixtures/SOURCES.md) load as
//! Ansible documents them.

use fabcheck_inventory::VarValue;

use crate::{groups_of, load, names, parse};

#[test]
fn basic_ini_and_yaml_agree() {
    for file in ["ansible-docs/basic.ini", "ansible-docs/basic.yml"] {
        let inv = load(file);
        assert_eq!(
            names(inv.hosts()),
            [
                "mail.example.com",
                "foo.example.com",
                "bar.example.com",
                "one.example.com",
                "two.example.com",
                "three.example.com"
            ],
            "{file}"
        );
        let groups: Vec<_> = inv.groups().iter().map(|g| g.name()).collect();
        assert_eq!(groups, ["all", "dbservers", "ungrouped", "webservers"], "{file}");
        assert_eq!(groups_of(&inv, "mail.example.com"), ["ungrouped"], "{file}");
        assert_eq!(groups_of(&inv, "two.example.com"), ["dbservers"], "{file}");
        assert_eq!(inv.members("all").unwrap().len(), 6);
        assert_eq!(inv.group("all").unwrap().children(), ["dbservers", "ungrouped", "webservers"]);
    }
}

#[test]
fn hosts_in_multiple_groups() {
    let inv = load("ansible-docs/multiple-groups.yml");
    assert_eq!(inv.hosts().len(), 6);
    assert_eq!(groups_of(&inv, "one.example.com"), ["dbservers", "east", "prod"]);
    assert_eq!(groups_of(&inv, "bar.example.com"), ["test", "webservers", "west"]);
}

#[test]
fn parent_child_gives_the_same_membership() {
    let flat = load("ansible-docs/multiple-groups.yml");
    let nested = load("ansible-docs/parent-child.yml");
    for host in flat.hosts() {
        assert_eq!(host.groups(), nested.host(host.name()).unwrap().groups());
    }
    assert_eq!(nested.group("prod").unwrap().children(), ["east"]);
    assert_eq!(nested.members("prod").unwrap(), ["foo.example.com", "one.example.com", "two.example.com"]);
}

#[test]
fn ranges() {
    for file in ["ansible-docs/ranges.ini", "ansible-docs/ranges.yml"] {
        let inv = load(file);
        let web = inv.members("webservers").unwrap();
        assert_eq!(web.len(), 50, "{file}");
        assert_eq!(web[0], "www01.example.com");
        assert_eq!(web[49], "www50.example.com");
        let strided = inv.members("strided").unwrap();
        assert_eq!(strided.len(), 25, "{file}");
        assert_eq!(strided[1], "www03.example.com");
        assert_eq!(strided[24], "www49.example.com");
    }
    let inv = load("ansible-docs/ranges.ini");
    assert_eq!(
        inv.members("databases").unwrap(),
        [
            "db-a.example.com",
            "db-b.example.com",
            "db-c.example.com",
            "db-d.example.com",
            "db-e.example.com",
            "db-f.example.com"
        ]
    );
}

#[test]
fn host_vars_are_typed_alike_in_both_formats() {
    let ini = load("ansible-docs/host-vars.ini");
    let yaml = load("ansible-docs/host-vars.yml");
    for inv in [&ini, &yaml] {
        let host2 = inv.host("host2").unwrap();
        assert_eq!(host2.var("http_port"), Some(&VarValue::Int(303)));
        assert_eq!(host2.var("maxRequestsPerChild"), Some(&VarValue::Int(909)));
    }
    assert_eq!(ini.host("host1").unwrap().vars(), yaml.host("host1").unwrap().vars());
}

#[test]
fn port_suffix_and_connection_vars() {
    let inv = load("ansible-docs/port-and-connection.ini");
    let badwolf = inv.host("badwolf.example.com").unwrap();
    assert_eq!(badwolf.port(), Some(5309));
    assert_eq!(badwolf.groups(), ["ungrouped"]);
    assert_eq!(inv.host("other1.example.com").unwrap().user(), Some("myuser"));
    assert_eq!(inv.host("other2.example.com").unwrap().user(), Some("myotheruser"));
    assert_eq!(inv.host("localhost").unwrap().var("ansible_connection"), Some(&VarValue::from("local")));
}

#[test]
fn aliases() {
    for file in ["ansible-docs/aliases.ini", "ansible-docs/aliases.yml"] {
        let jumper = load(file).host("jumper").cloned().unwrap();
        assert_eq!(jumper.address(), "192.0.2.50", "{file}");
        assert_eq!(jumper.port(), Some(5555), "{file}");
    }
}

#[test]
fn group_vars() {
    for file in ["ansible-docs/group-vars.ini", "ansible-docs/group-vars.yml"] {
        let inv = load(file);
        for host in inv.hosts() {
            assert_eq!(host.var("ntp_server"), Some(&VarValue::from("ntp.atlanta.example.com")));
            assert_eq!(host.var("proxy"), Some(&VarValue::from("proxy.atlanta.example.com")));
        }
    }
}

#[test]
fn groups_of_groups_yaml() {
    let inv = load("ansible-docs/groups-of-groups.yml");
    assert_eq!(names(inv.hosts()), ["host1", "host2", "host3"]);
    assert_eq!(groups_of(&inv, "host2"), ["atlanta", "raleigh", "southeast", "usa"]);
    assert_eq!(inv.group("usa").unwrap().children(), ["northeast", "northwest", "southeast", "southwest"]);
    let host3 = inv.host("host3").unwrap();
    assert_eq!(host3.var("halon_system_timeout"), Some(&VarValue::Int(30)));
    assert_eq!(host3.var("some_server"), Some(&VarValue::from("foo.southeast.example.com")));
}

/// The page's INI version lists `northeast`, `southwest` and `northwest` as children without
/// defining them; current Ansible (`ini.py`) rejects that, and so does fabcheck, at the line
/// of the first such reference.
#[test]
fn groups_of_groups_ini_is_rejected_like_ansible_does() {
    let err = parse("ansible-docs/groups-of-groups.ini").unwrap_err();
    assert_eq!(
        err.to_string(),
        "ansible-docs/groups-of-groups.ini:21: [usa:children] includes undefined group `northeast`"
    );
    let text = std::fs::read_to_string(crate::fixture("ansible-docs/groups-of-groups.ini")).unwrap();
    let fixed = format!("{text}\n[northeast]\n[southwest]\n[northwest]\n");
    let inv = fabcheck_inventory::Inventory::parse_ini(&fixed, "fixed.ini").unwrap();
    assert_eq!(inv.host("host2").unwrap().groups(), ["atlanta", "raleigh", "southeast", "usa"]);
}

#[test]
fn group_priority_snippet_loads() {
    let inv = load("ansible-docs/group-priority.yml");
    assert!(inv.hosts().is_empty());
    assert_eq!(inv.group("a_group").unwrap().vars().get("ansible_group_priority"), Some(&VarValue::Int(10)));
}

#[test]
fn behavioral_parameters() {
    let inv = load("ansible-docs/behavioral.ini");
    let some = inv.host("some_host").unwrap();
    assert_eq!((some.port(), some.user()), (Some(2222), Some("manager")));
    assert_eq!(inv.host("aws_host").unwrap().key_file(), Some(std::path::Path::new("/home/example/.ssh/aws.pem")));
    assert_eq!(
        inv.host("ruby_module_host").unwrap().var("ansible_ruby_interpreter"),
        Some(&VarValue::from("/usr/bin/ruby.1.9.3"))
    );
}

/// The INI plugin's own example, with the types its comments promise (and, for `myvar`,
/// the type its code actually gives: `literal_eval` runs on `:vars` values too).
#[test]
fn ini_plugin_example_1() {
    let inv = load("ansible-docs/ini-plugin-example1.ini");
    assert_eq!(inv.members("web").unwrap(), ["host1", "host2", "tomcat1", "tomcat2", "tomcat3", "jenkins1"]);
    let host2 = inv.host("host2").unwrap();
    assert_eq!(host2.var("ansible_port"), Some(&VarValue::Int(222)));
    assert_eq!(host2.var("http_port"), Some(&VarValue::Int(8080)));
    assert_eq!(inv.host("tomcat1").unwrap().var("myvar"), Some(&VarValue::Int(23)));
    assert_eq!(inv.host("tomcat2").unwrap().var("myvar"), Some(&VarValue::Int(34)));
    assert_eq!(inv.host("tomcat3").unwrap().var("mysecret"), Some(&VarValue::from("03#pa33w0rd")));
    assert_eq!(inv.host("jenkins1").unwrap().var("has_java"), Some(&VarValue::Bool(true)));
    assert_eq!(inv.host("tomcat1").unwrap().var("has_java"), Some(&VarValue::Bool(false)));
}

#[test]
fn ini_plugin_example_2() {
    let inv = load("ansible-docs/ini-plugin-example2.ini");
    assert_eq!(inv.members("ungrouped").unwrap(), ["host1", "host2", "host3"]);
    assert_eq!(groups_of(&inv, "host4"), ["g1", "g2"]);
    let (h2, h3) = (inv.host("host2").unwrap(), inv.host("host3").unwrap());
    assert_eq!((h2.address(), h2.port()), ("127.0.0.1", Some(44)));
    assert_eq!((h3.address(), h3.port()), ("127.0.0.1", Some(45)));
}

#[test]
fn yaml_plugin_example() {
    let inv = load("ansible-docs/yaml-plugin-example.yml");
    assert_eq!(names(inv.hosts()), ["test1", "test2", "test5", "test6", "test4"]);
    assert_eq!(groups_of(&inv, "test5"), ["group_x", "other_group"]);
    assert_eq!(groups_of(&inv, "test1"), ["last_group"]);
    assert_eq!(groups_of(&inv, "test2"), ["ungrouped"]);
    let test5 = inv.host("test5").unwrap();
    assert_eq!(test5.var("g2_var2"), Some(&VarValue::from("value3")));
    assert_eq!(test5.var("group_all_var"), Some(&VarValue::from("value")));
    assert_eq!(inv.host("test4").unwrap().address(), "127.0.0.1");
    assert_eq!(inv.host("test2").unwrap().var("host_var"), Some(&VarValue::from("value")));
    assert_eq!(inv.host("test1").unwrap().var("group_last_var"), Some(&VarValue::from("value")));
}
