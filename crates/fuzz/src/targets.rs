//! The fuzz targets: every reader of input fabcheck does not control. Each takes bytes as the
//! pipeline receives them (command output is read as lossy UTF-8, files as bytes), runs the
//! reader, checks what the reader promises beyond not panicking, and returns the outcome's
//! [`Shape`].

use crate::seeds::{DeviceSeed, Seeds};
use crate::shape::{Names, Shape, field_names};
use fabcheck::evidence::{self, DeviceRecord, Evidence};
use fabcheck::transport::known_hosts::{HostKeyStatus, KnownHosts, Lookup};
use fabcheck::transport::revoked_keys::RevokedKeys;
use fabcheck::transport::{Algorithms, config_line_warning};
use fabcheck_flows::flow::Flows;
use fabcheck_inventory::Inventory;
use fabcheck_inventory::ssh_config::SshConfig;
use russh::keys::{Certificate, PublicKey};
use std::io::Cursor;
use std::path::Path;
use std::time::Duration;

/// What a reader was given and what it did with it.
pub type Run = Box<dyn Fn(&[u8]) -> Result<Vec<u64>, String> + Send + Sync>;

/// One reader under test, with its seeds.
pub struct Target {
    /// `mlnx_qos`, `inventory.ini`, `device.sonic`...
    pub name: String,
    /// Inputs are made within this length (a window of a longer seed).
    pub max_len: usize,
    /// Real inputs the campaign starts from.
    pub seeds: Vec<Vec<u8>>,
    /// Reads one input: its outcome's features, or a promise the reader broke.
    pub run: Run,
    /// An input that takes longer (on three runs) is a failure.
    pub slow: Duration,
}

impl Target {
    /// A target whose inputs are slow past [`SLOW`].
    pub fn new(name: &str, max_len: usize, seeds: Vec<Vec<u8>>, run: Run) -> Target {
        Target { name: name.into(), max_len, seeds, run, slow: SLOW }
    }

    /// The same target with another limit for a slow input.
    pub fn slow_after(self, slow: Duration) -> Target {
        Target { slow, ..self }
    }
}

/// An input slower than this is a failure (a reader quadratic somewhere); outputs are read in
/// microseconds.
pub const SLOW: Duration = Duration::from_millis(250);

/// An inventory may expand one range to 100,000 hosts, read in about a second (linear: the
/// scale benchmark's `inventory` scenario): an inventory is slow past five.
const SLOW_INVENTORY: Duration = Duration::from_secs(5);

/// Input lengths: a window of 2 KiB holds most real outputs whole, or a table's header and rows;
/// configurations and inventories need more to keep their sections. Longer inputs run slower
/// without reaching other code.
const TEXT: usize = 2048;
const DOCUMENT: usize = 8 * 1024;

/// Every target, seeded from `seeds`.
pub fn all(seeds: &Seeds) -> Vec<Target> {
    let mut targets: Vec<Target> = fabcheck_parse::sources().into_iter().map(|s| parser(s, seeds)).collect();
    let inventories = [
        ("inventory.ini", seeds.files("inventory", "ini"), "fuzz.ini"),
        ("inventory.yaml", seeds.files("inventory", "yml"), "fuzz.yml"),
        ("inventory.json", seeds.inventory_listings(), "fuzz.json"),
    ];
    for (name, seeds, file) in inventories {
        targets.push(text_target(name, DOCUMENT, seeds, move |t| inventory(t, file)).slow_after(SLOW_INVENTORY));
    }
    targets.push(text_target("ssh_config", DOCUMENT, seeds.ssh_configs(), ssh_config));
    targets.push(text_target("known_hosts", DOCUMENT, seeds.known_hosts(), known_hosts));
    targets.push(Target::new("revoked_host_keys", DOCUMENT, seeds.revoked_host_keys(), Box::new(revoked_host_keys)));
    targets.push(text_target("policy", DOCUMENT, seeds.files("policy", "yaml"), policy));
    targets.push(text_target("snapshot.manifest", DOCUMENT, seeds.manifests(), manifest));
    targets.push(Target::new("snapshot.commands", DOCUMENT, seeds.commands_files(), Box::new(commands)));
    let mut platforms: Vec<(String, String)> =
        seeds.devices().iter().map(|d| (d.role.clone(), d.platform.clone())).collect();
    platforms.sort();
    platforms.dedup();
    for (role, platform) in platforms {
        targets.push(device(&role, &platform, seeds.devices()));
    }
    targets.push(Target::new("capture", 64 * 1024, seeds.captures(), Box::new(capture)));
    targets.push(Target::new("sflow", TEXT, seeds.sflow_datagrams(), Box::new(sflow)));
    targets.push(text_target("flow_records", DOCUMENT, seeds.flow_records(), flow_records));
    targets
}

fn text_target(
    name: &str,
    max_len: usize,
    seeds: Vec<Vec<u8>>,
    read: impl Fn(&str) -> Result<Vec<u64>, String> + Send + Sync + 'static,
) -> Target {
    Target::new(name, max_len, seeds, Box::new(move |b| read(&String::from_utf8_lossy(b))))
}

/// One command's parser, through `fabcheck parse`'s entry point. Its promises: every warning
/// and the error name a line of the input (or 0, the whole of it).
fn parser(source: &'static str, seeds: &Seeds) -> Target {
    let max_len = if seeds.is_configuration(source) { DOCUMENT } else { TEXT };
    let outputs = seeds.outputs(source);
    let facts = outputs.iter().filter_map(|o| fabcheck_parse::parse_to_json(source, &String::from_utf8_lossy(o)));
    let names = field_names(facts.filter_map(Result::ok).map(|p| p.value).collect::<Vec<_>>().iter());
    text_target(source, max_len, outputs, move |text| {
        let mut shape = Shape::default();
        // The line a warning or the error names, if any, must be one the input has.
        let named = match fabcheck_parse::parse_to_json(source, text) {
            None => return Err(format!("`{source}` is not a source")),
            Some(Ok(parsed)) => {
                shape.tag("ok").json(&parsed.value, &names).count("warnings", parsed.warnings.len());
                for w in &parsed.warnings {
                    shape.message(&w.message);
                }
                parsed.warnings.into_iter().max_by_key(|w| w.line).map(|w| (w.line, w.message))
            }
            Some(Err(e)) => {
                shape.tag("error").message(&e.message);
                Some((e.line, e.message))
            }
        };
        // A line past the input's newlines is rare: only then are line breaks counted as YAML
        // counts them (slower; a lone `\r` is one too).
        if let Some((line, message)) = named
            && line > text.bytes().filter(|&b| b == b'\n').count() + 1
            && line > line_breaks(text) + 1
        {
            return Err(format!("line {line} named, of {} lines: {message}", line_breaks(text) + 1));
        }
        Ok(shape.features())
    })
}

/// Line breaks as YAML counts them (a lone `\r` is one too): the most any reader counts.
fn line_breaks(text: &str) -> usize {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))).count()
}

/// An ssh_config read as `fabcheck` reads one: three aliases resolved, their algorithm lines
/// applied and what is left out of them said. `Include` lines are dropped first: a fuzzed glob
/// would read this machine's files. An error or warning must name a line of the input.
fn ssh_config(text: &str) -> Result<Vec<u64>, String> {
    let kept: Vec<&str> =
        text.lines().filter(|l| !l.trim_start().to_ascii_lowercase().starts_with("include")).collect();
    let text = kept.join("\n");
    let mut shape = Shape::default();
    let lines = kept.len().max(1) as u32;
    let named = |line: u32, what: &str| {
        if line == 0 || line > lines { Err(format!("line {line} named, of {lines}: {what}")) } else { Ok(()) }
    };
    let config = match SshConfig::parse_with_home(&text, "fuzz", Path::new("/nonexistent")) {
        Ok(config) => config,
        Err(e) => {
            named(e.line().unwrap_or(0), &e.to_string())?;
            shape.tag("error").message(&e.to_string());
            return Ok(shape.features());
        }
    };
    shape.tag("ok");
    for w in config.warnings() {
        named(w.line, &w.message)?;
        shape.message(&w.message);
    }
    for alias in ["gpu01", "leaf1", "10.0.0.1"] {
        let resolved = config.resolve(alias);
        shape.count("identity_files", resolved.identity_files.len()).count("algorithms", resolved.algorithms.len());
        for setting in &resolved.algorithms {
            named(setting.line, &setting.list)?;
            if let Some(warning) = config_line_warning(setting) {
                shape.message(&warning);
            }
        }
        let offered = Algorithms::for_device(false, &resolved.algorithms);
        shape.tag(if offered.unusable().is_some() { "unusable" } else { "usable" });
        let _ = offered.preferred();
        if let Some(command) = &resolved.host_keys.known_hosts_command {
            named(command.set_at.line, &command.command)?;
            let env = |name: &str| (name == "HOME").then(|| "/home/fuzz".to_string());
            match command.argv(&[('H', alias), ('I', "ORDER")], &env) {
                Ok(argv) => shape.count("command_arguments", argv.len()),
                Err(e) => shape.message(&e),
            };
        }
    }
    Ok(shape.features())
}

/// Keys a connection might present: ED25519 #1 and #5 of the seed from OpenSSH's tests.
static PRESENTED: std::sync::LazyLock<Vec<PublicKey>> = std::sync::LazyLock::new(|| {
    [
        "AAAAC3NzaC1lZDI1NTE5AAAAIK9ks7jkua5YWIwByRnnnc6UPJQWI75O0e/UJdPYU1JI",
        "AAAAC3NzaC1lZDI1NTE5AAAAINf63qSV8rD57N+digID8t28WVhd3Yf2K2UhaoG8TsWQ",
    ]
    .iter()
    .filter_map(|blob| PublicKey::from_openssh(&format!("ssh-ed25519 {blob}")).ok())
    .collect()
});

/// Certificates a connection might present: serials 1 and 5 of the KRL fixtures' authority.
static CERTIFICATES: std::sync::LazyLock<Vec<Certificate>> = std::sync::LazyLock::new(|| {
    [
        include_str!("../../../tests/fixtures/krl/revoked-0001-cert.pub"),
        include_str!("../../../tests/fixtures/krl/revoked-0005-cert.pub"),
    ]
    .iter()
    .filter_map(|text| Certificate::from_openssh(text.trim()).ok())
    .collect()
});

/// A `RevokedHostKeys` file (a KRL, or a list of keys) read as `fabcheck` reads one, then asked
/// about plain keys and certificates.
fn revoked_host_keys(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match RevokedKeys::parse(bytes) {
        Ok(revoked) => {
            shape.tag("ok");
            for key in PRESENTED.iter() {
                shape.message(&revoked.revokes_key(key.key_data()).unwrap_or_default());
            }
            for certificate in CERTIFICATES.iter() {
                shape.message(&revoked.revokes_certificate(certificate).unwrap_or_default());
            }
        }
        Err(e) => {
            shape.tag("error").message(&e);
        }
    }
    Ok(shape.features())
}

/// A known_hosts file read as `fabcheck` reads one, then asked what a connection asks about a
/// plain name, an address, a name off port 22, an alias: each key's status, and what is listed. A skipped line must name a line of the input.
fn known_hosts(text: &str) -> Result<Vec<u64>, String> {
    let mut known = KnownHosts::default();
    known.add(text, Path::new("fuzz"));
    let lines = text.lines().count().max(1);
    let mut shape = Shape::default();
    shape.count("skipped", known.skipped.len());
    for skipped in &known.skipped {
        let line = skipped.strip_prefix("fuzz:").and_then(|r| r.split(':').next()).and_then(|n| n.parse().ok());
        if !line.is_some_and(|n: usize| (1..=lines).contains(&n)) {
            return Err(format!("a skipped line names no line of the {lines}: {skipped}"));
        }
        shape.message(skipped.split_once(": ").map_or("", |(_, why)| why));
    }
    let view = known.all();
    for (host, port, alias) in [
        ("sisyphus.example.com", 22, None),
        ("192.0.2.1", 22, None),
        ("gpu01", 2222, None),
        ("10.0.0.1", 2222, Some("cluster")),
    ] {
        let at = Lookup::new(host, port, alias);
        for key in PRESENTED.iter() {
            shape.tag(match view.check(&at, key) {
                HostKeyStatus::Trusted => "trusted",
                HostKeyStatus::Revoked => "revoked",
                HostKeyStatus::Changed { .. } => "changed",
                HostKeyStatus::Unknown => "unknown",
            });
        }
        let listed = view.listed(&at);
        shape
            .tag(if listed.authority { "authority" } else { "no authority" })
            .count("listed types", listed.key_types.len());
    }
    Ok(shape.features())
}

/// The field names of `inventory --list`'s JSON; groups, hosts and variables are data.
static LISTING_NAMES: std::sync::LazyLock<Names> =
    std::sync::LazyLock::new(|| ["_meta", "hostvars", "hosts", "children", "vars"].map(String::from).into());

/// An inventory read as `fabcheck` reads one, then listed as `inventory --list` lists it.
fn inventory(text: &str, file_name: &str) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match Inventory::parse(text, file_name) {
        Ok(inv) => {
            let hosts: Vec<_> = inv.hosts().iter().collect();
            let listing = fabcheck_inventory::ansible_listing(&inv, &hosts);
            shape
                .tag("ok")
                .count("hosts", hosts.len())
                .count("groups", inv.groups().len())
                .json(&listing, &LISTING_NAMES);
            if let Some(h) = hosts.iter().find(|h| !fabcheck_inventory::is_usable_host_name(h.name())) {
                return Err(format!("host `{}` was accepted but cannot name its evidence", h.name()));
            }
        }
        Err(e) => {
            shape.tag("error").message(&e.to_string());
        }
    }
    Ok(shape.features())
}

fn policy(text: &str) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match fabcheck::policy::Policy::parse(text, "fuzz.yaml") {
        Ok(p) => shape.tag("ok").tag(if p.checks_nothing() { "nothing" } else { "rules" }),
        Err(e) => shape.tag("error").message(&e.to_string()),
    };
    Ok(shape.features())
}

/// A manifest, and each device's name as read from it: a name accepted as a directory must stay
/// inside the snapshot.
fn manifest(text: &str) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match evidence::parse_manifest(text) {
        Ok(m) => {
            shape.tag("ok").count("devices", m.devices.len());
            for d in &m.devices {
                let usable = fabcheck_inventory::is_usable_host_name(&d.name);
                if usable && (d.name.contains(['/', '\\']) || d.name.starts_with('.')) {
                    return Err(format!("device name `{}` would leave the snapshot", d.name));
                }
                shape.tag(if usable { "name" } else { "refused" });
            }
        }
        Err(e) => {
            shape.tag("error").message(&e);
        }
    }
    Ok(shape.features())
}

/// A device's `commands.json`: an accepted key always names a file inside the device's directory.
fn commands(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match evidence::parse_commands(bytes) {
        Ok(outputs) => {
            shape.tag("ok").count("outputs", outputs.len());
            if let Some(e) = outputs.iter().find(|e| e.key.contains(['/', '\\']) || e.key.starts_with('.')) {
                return Err(format!("key `{}` would leave the device's directory", e.key));
            }
        }
        Err(e) => {
            shape.tag("error").message(&e);
        }
    }
    Ok(shape.features())
}

/// A whole device's evidence through the facts stage, as a snapshot of it would be judged: the
/// input is the device's outputs in [`crate::seeds::DEVICE_HEADER`] form, so that the campaign
/// edits, drops, repeats and renames whole outputs as well as their lines.
fn device(role: &str, platform: &str, devices: &[DeviceSeed]) -> Target {
    let seeds = devices.iter().filter(|d| d.role == role && d.platform == platform).map(|d| d.text.clone()).collect();
    let (role, platform) = (role.to_string(), platform.to_string());
    Target::new(
        &format!("device.{platform}.{role}"),
        64 * 1024,
        seeds,
        Box::new(move |bytes| {
            let record = DeviceRecord {
                name: "fuzzed".into(),
                role: role.clone(),
                platform: platform.clone(),
                address: "192.0.2.1:22".into(),
                nics: Vec::new(),
                error: None,
                outputs: crate::seeds::device_outputs(bytes).into_iter().map(output).collect(),
            };
            let facts = fabcheck::facts::build(&record);
            let mut shape = Shape::default();
            shape.tag(kind(&facts.kind)).count("reading", facts.reading.len()).count("unread", facts.unread.len());
            for f in &facts.reading {
                shape.tag(&f.code);
            }
            for u in &facts.unread {
                shape.message(u.error.as_deref().unwrap_or("")).count("unread lines", u.lines.len());
            }
            if let Some(config) = fabcheck::facts::config::values(&facts) {
                for setting in config.values().flat_map(|settings| settings.keys()) {
                    shape.message(&setting.replace('.', " "));
                }
            }
            Ok(shape.features())
        }),
    )
}

fn output((key, source, stdout): (String, String, Vec<u8>)) -> Evidence {
    Evidence {
        command: key.clone(),
        key,
        source,
        stdout,
        stderr: String::new(),
        exit_status: Some(0),
        transport_error: None,
        started_ms: 1_796_136_207_542,
        duration_ms: 2,
        truncated: false,
        json_refused: None,
    }
}

fn kind(kind: &fabcheck::facts::DeviceKind) -> &'static str {
    use fabcheck::facts::DeviceKind::*;
    match kind {
        Unreachable { .. } => "unreachable",
        Host(_) => "host",
        Switch(_) => "switch",
        Collector(_) => "collector",
        Unsupported => "unsupported",
    }
}

/// A pcap or pcapng capture through `fabcheck flows`' reader: every frame is counted once.
fn capture(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut flows = Flows::default();
    let read = fabcheck_flows::analyse(Cursor::new(bytes.to_vec()), &mut flows);
    let mut shape = Shape::default();
    shape.tag(if read.is_ok() { "ok" } else { "error" }).count("flows", flows.flows.len());
    let counted = flows.rocev1 + flows.malformed + flows.other + flows.unknown_link;
    if counted > flows.frames {
        return Err(format!("{counted} frames counted by kind, {} read", flows.frames));
    }
    for (what, n) in [
        ("frames", flows.frames),
        ("rocev1", flows.rocev1),
        ("malformed", flows.malformed),
        ("other", flows.other),
        ("unknown link", flows.unknown_link),
    ] {
        shape.count(what, n as usize);
    }
    Ok(shape.features())
}

/// An sFlow datagram: every sampled header lies within the datagram.
fn sflow(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let mut shape = Shape::default();
    match fabcheck_flows::sflow::parse(bytes) {
        Ok(d) => {
            shape.tag("ok").count("samples", d.flow_samples.len());
            let range = bytes.as_ptr_range();
            for s in &d.flow_samples {
                if let Some(h) = s.header {
                    let inside =
                        h.bytes.is_empty() || range.contains(&h.bytes.as_ptr()) && h.bytes.len() <= bytes.len();
                    if !inside {
                        return Err("a sampled header outside the datagram".into());
                    }
                    if let Some(link) = h.link() {
                        shape.tag(frame_kind(&fabcheck_flows::decode::frame(link, h.bytes)));
                    }
                }
            }
        }
        Err(e) => {
            shape.tag("error").message(&e.to_string());
        }
    }
    Ok(shape.features())
}

fn frame_kind(frame: &fabcheck_flows::decode::Frame<'_>) -> &'static str {
    use fabcheck_flows::decode::Frame::*;
    match frame {
        RoceV2(_) => "rocev2",
        Sflow(_) => "sflow",
        RoceV1 => "rocev1",
        Malformed => "malformed",
        Other => "other",
    }
}

/// `rdma-flow-record/1` lines as a collector prints them: each line is a record or one error.
fn flow_records(text: &str) -> Result<Vec<u64>, String> {
    let (records, errors) = fabcheck_flows::record::read_lines(text);
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if records.len() + errors.len() != lines {
        return Err(format!("{} records and {} errors from {lines} lines", records.len(), errors.len()));
    }
    let mut shape = Shape::default();
    shape.count("records", records.len()).count("errors", errors.len());
    for (_, why) in &errors {
        shape.message(why);
    }
    Ok(shape.features())
}
