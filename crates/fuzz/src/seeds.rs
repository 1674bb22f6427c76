//! Where the campaign starts: the real published outputs the parser tests read (the checkout's
//! fixtures), and evidence snapshots (the committed one, and any an operator passes with
//! `--seeds`: a snapshot of their own fleet seeds every parser its devices ran).

use fabcheck::evidence::{self, DeviceRecord};
use fabcheck_flows::decode::{Frame, frame};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The line that starts each output in a device's fuzz input: `@@ KEY SOURCE`.
pub const DEVICE_HEADER: &str = "@@ ";

/// A device of a snapshot, as one fuzz input.
pub struct DeviceSeed {
    /// `host`, `leaf`...
    pub role: String,
    /// `linux`, `sonic`...
    pub platform: String,
    /// Its outputs in [`DEVICE_HEADER`] form.
    pub text: Vec<u8>,
}

/// Every seed, read once.
pub struct Seeds {
    root: PathBuf,
    /// Outputs by parser source.
    outputs: BTreeMap<String, Vec<Vec<u8>>>,
    devices: Vec<DeviceSeed>,
    manifests: Vec<Vec<u8>>,
    commands: Vec<Vec<u8>>,
}

/// Fixture directories named other than their source.
const FIXTURE_DIRS: &[(&str, &str)] = &[("ethtool_stats", "ethtool")];

/// Sources whose output is a whole configuration: longer inputs.
const CONFIGURATIONS: &[&str] = &["sonic", "eos", "nxos", "dell_os10", "nvue"];

impl Seeds {
    /// Reads the fixtures of the checkout at `root` and the evidence snapshots `snapshots` (the
    /// committed one is always read).
    pub fn load(root: &Path, snapshots: &[PathBuf]) -> anyhow::Result<Seeds> {
        let fixtures = root.join("crates/parse/tests/fixtures");
        anyhow::ensure!(
            fixtures.is_dir(),
            "{}: no parser fixtures here; pass --root with a fabcheck checkout",
            fixtures.display()
        );
        let mut seeds = Seeds {
            root: root.to_path_buf(),
            outputs: BTreeMap::new(),
            devices: vec![],
            manifests: vec![],
            commands: vec![],
        };
        for dir in sorted_entries(&fixtures)? {
            let name = file_name(&dir);
            let source = FIXTURE_DIRS.iter().find(|(d, _)| *d == name).map_or(name.as_str(), |(_, s)| s).to_string();
            for file in sorted_entries(&dir)?.into_iter().filter(|f| !file_name(f).ends_with(".md")) {
                seeds.outputs.entry(source.clone()).or_default().push(std::fs::read(&file)?);
            }
        }
        let committed = root.join("tests/fixtures/snapshot-v1/evidence");
        for snapshot in std::iter::once(&committed).chain(snapshots) {
            seeds.add_snapshot(snapshot)?;
        }
        Ok(seeds)
    }

    fn add_snapshot(&mut self, dir: &Path) -> anyhow::Result<()> {
        let (_, records) = evidence::read_snapshot(dir, evidence::DEFAULT_MAX_OUTPUT)
            .map_err(|e| anyhow::anyhow!("seed snapshot {e}"))?;
        self.manifests.push(std::fs::read(dir.join("manifest.json"))?);
        for record in records.iter().filter(|r| !r.outputs.is_empty()) {
            self.commands.push(std::fs::read(dir.join(&record.name).join("commands.json"))?);
            for output in &record.outputs {
                self.outputs.entry(output.source.clone()).or_default().push(output.stdout.clone());
            }
            self.devices.push(device_seed(record));
        }
        Ok(())
    }

    /// The outputs of `source`, or, when there is none, every other source's (any text is a
    /// start).
    pub fn outputs(&self, source: &str) -> Vec<Vec<u8>> {
        match self.outputs.get(source) {
            Some(own) if !own.is_empty() => own.clone(),
            _ => self.outputs.values().flatten().cloned().collect(),
        }
    }

    /// Whether `source`'s output is a whole configuration.
    pub fn is_configuration(&self, source: &str) -> bool {
        CONFIGURATIONS.contains(&source)
    }

    /// The checkout's files of a kind: inventories (`ini`, `yml`) or policies (`yaml`).
    pub fn files(&self, kind: &str, extension: &str) -> Vec<Vec<u8>> {
        let dirs: &[&str] = match kind {
            "inventory" => &["crates/inventory/tests/fixtures", "inventories"],
            _ => &["playbooks/policies"],
        };
        let mut files = Vec::new();
        for dir in dirs {
            walk(&self.root.join(dir), &mut files);
        }
        files.sort();
        let wanted = |p: &PathBuf| p.extension().is_some_and(|e| e == extension || (extension == "yml" && e == "yaml"));
        files.iter().filter(|p| wanted(p)).filter_map(|p| std::fs::read(p).ok()).collect()
    }

    /// The ssh_config files of the inventory's tests (a main file and the files it includes).
    pub fn ssh_configs(&self) -> Vec<Vec<u8>> {
        let mut files = Vec::new();
        walk(&self.root.join("crates/inventory/tests/fixtures/ssh-home/.ssh"), &mut files);
        files.sort();
        files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
    }

    /// The known_hosts files of the fixtures (OpenSSH's own test file among them).
    pub fn known_hosts(&self) -> Vec<Vec<u8>> {
        self.fixture_files("tests/fixtures/known_hosts")
    }

    /// The `RevokedHostKeys` files of the fixtures: KRLs made by ssh-keygen, and a key and a
    /// certificate as a list of keys.
    pub fn revoked_host_keys(&self) -> Vec<Vec<u8>> {
        self.fixture_files("tests/fixtures/krl")
    }

    /// Every file under `dir` of the checkout but its SOURCES.md, in name order.
    fn fixture_files(&self, dir: &str) -> Vec<Vec<u8>> {
        let mut files = Vec::new();
        walk(&self.root.join(dir), &mut files);
        files.sort();
        files.iter().filter(|p| !file_name(p).ends_with(".md")).filter_map(|p| std::fs::read(p).ok()).collect()
    }

    /// The seed inventories as `inventory --list` prints them (the JSON a dynamic inventory
    /// script gives).
    pub fn inventory_listings(&self) -> Vec<Vec<u8>> {
        let mut listings = Vec::new();
        for (ext, name) in [("ini", "seed.ini"), ("yml", "seed.yml")] {
            for text in self.files("inventory", ext) {
                if let Ok(inv) = fabcheck_inventory::Inventory::parse(&String::from_utf8_lossy(&text), name) {
                    let hosts: Vec<_> = inv.hosts().iter().collect();
                    let json = fabcheck_inventory::ansible_listing(&inv, &hosts);
                    listings.push(serde_json::to_vec_pretty(&json).unwrap_or_default());
                }
            }
        }
        listings
    }

    /// The snapshots' manifests.
    pub fn manifests(&self) -> Vec<Vec<u8>> {
        self.manifests.clone()
    }

    /// The snapshots' `commands.json` files.
    pub fn commands_files(&self) -> Vec<Vec<u8>> {
        self.commands.clone()
    }

    /// The snapshots' devices that gave outputs.
    pub fn devices(&self) -> &[DeviceSeed] {
        &self.devices
    }

    /// The checkout's pcap and pcapng captures (RoCEv2 and sFlow).
    pub fn captures(&self) -> Vec<Vec<u8>> {
        self.capture_files().iter().filter_map(|p| std::fs::read(p).ok()).collect()
    }

    fn capture_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        walk(&self.root.join("crates/flows/tests/fixtures"), &mut files);
        files.retain(|p| p.extension().is_some_and(|e| e == "pcap" || e == "pcapng"));
        files.sort();
        files
    }

    /// The sFlow datagrams of the captures (their UDP payloads).
    pub fn sflow_datagrams(&self) -> Vec<Vec<u8>> {
        let mut datagrams = Vec::new();
        for bytes in self.captures() {
            let _ = fabcheck_flows::capture::for_each_frame(std::io::Cursor::new(bytes), |c| {
                if let Some(link) = c.link
                    && let Frame::Sflow(d) = frame(link, c.data)
                {
                    datagrams.push(d.to_vec());
                }
            });
        }
        datagrams
    }

    /// The flow records of each capture, as `fabcheck flows` prints them.
    pub fn flow_records(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for path in self.capture_files() {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let mut flows = fabcheck_flows::flow::Flows::default();
            if fabcheck_flows::analyse(std::io::Cursor::new(bytes), &mut flows).is_err() {
                continue;
            }
            let source = fabcheck_flows::record::Source {
                kind: "capture".into(),
                file: file_name(&path),
                point: None,
                sampling_rate: 1,
            };
            let lines: Vec<String> = fabcheck_flows::record::records(&flows, &source)
                .iter()
                .filter_map(|r| serde_json::to_string(r).ok())
                .collect();
            if !lines.is_empty() {
                seeds.push((lines.join("\n") + "\n").into_bytes());
            }
        }
        seeds
    }
}

fn device_seed(record: &DeviceRecord) -> DeviceSeed {
    let mut text = Vec::new();
    for output in &record.outputs {
        text.extend_from_slice(format!("{DEVICE_HEADER}{} {}\n", output.key, output.source).as_bytes());
        text.extend_from_slice(&output.stdout);
        if !output.stdout.ends_with(b"\n") {
            text.push(b'\n');
        }
    }
    DeviceSeed { role: record.role.clone(), platform: record.platform.clone(), text }
}

/// A device's fuzz input back as outputs: `(key, source, stdout)` per [`DEVICE_HEADER`] line;
/// bytes before the first header are dropped.
pub fn device_outputs(bytes: &[u8]) -> Vec<(String, String, Vec<u8>)> {
    let mut outputs: Vec<(String, String, Vec<u8>)> = Vec::new();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if let Some(header) = line.strip_prefix(DEVICE_HEADER.as_bytes()) {
            let header = String::from_utf8_lossy(header);
            let mut words = header.split_whitespace();
            let key = words.next().unwrap_or_default().to_string();
            let source = words.next().map_or_else(|| key.clone(), str::to_string);
            outputs.push((key, source, Vec::new()));
        } else if let Some(last) = outputs.last_mut() {
            last.2.extend_from_slice(line);
        }
    }
    outputs
}

fn sorted_entries(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    Ok(entries)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_input_reads_back_as_its_outputs() {
        let text = b"junk\n@@ lsmod lsmod\nModule Size\n@@ ibstat\nCA 'mlx5_0'\n\n@@ \n";
        let outputs = device_outputs(text);
        assert_eq!(outputs.len(), 3);
        assert_eq!(outputs[0], ("lsmod".into(), "lsmod".into(), b"Module Size\n".to_vec()));
        assert_eq!(outputs[1], ("ibstat".into(), "ibstat".into(), b"CA 'mlx5_0'\n\n".to_vec()));
        assert_eq!(outputs[2], (String::new(), String::new(), Vec::new()));
    }
}
