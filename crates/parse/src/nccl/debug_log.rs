//! NCCL's own log lines (`NCCL_DEBUG=INFO|WARN`), as NCCL's `debug.cc` prints them:
//!
//! ```text
//! host:pid:tid [cudaDev] NCCL INFO message
//! host:pid:tid [cudaDev] file.cc:line NCCL WARN message
//! ```
//!
//! The prefix is found around the `NCCL <LEVEL>` marker rather than parsed from the start of the
//! line, so that what launchers put in front (`[1,0]<stdout>:` from `mpirun --tag-output`, `0: `
//! from `srun -l`, the `[date time] ` NCCL ≥ 2.23 puts before WARN lines) does not matter.
use super::table::is_number;
use crate::lines::clip;
use regex::Regex;
use std::sync::LazyLock;

/// How many characters of a WARN message an error keeps.
const MESSAGE_CHARS: usize = 400;

/// The level word after `NCCL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Info,
    Warn,
    /// `TRACE` (debug builds), read like INFO.
    Trace,
}

/// One NCCL log line, split.
#[derive(Debug, Clone, Copy)]
pub(super) struct DebugLine<'a> {
    /// The host of `host:pid:tid`.
    pub(super) host: Option<&'a str>,
    /// The CUDA device of `[cudaDev]` right after `host:pid:tid`: the GPU of the rank that logged.
    pub(super) device: Option<u32>,
    /// `file.cc:line` before the marker (WARN lines).
    pub(super) source: Option<&'a str>,
    pub(super) level: Level,
    /// What follows the marker, trimmed (may be empty when the line was cut after it).
    pub(super) message: &'a str,
    /// Where `host:pid:tid` starts in the line (none when it was not printed).
    host_at: Option<usize>,
}

impl<'a> DebugLine<'a> {
    /// The text printed before this log line on the same line, when that text is nccl-tests'
    /// own: NCCL logs from the test's own process (the COLL subsystem at every launch), and
    /// nccl-tests prints a table row in pieces (its parameters, then each result), so a log line
    /// can start right after a piece, glued to its last number: `... sum  -1gpu1:12:34 [1] NCCL
    /// INFO ...`. `known` says whether a name is a host seen so far (rank lines, log lines of
    /// their own): the longest known one that a number precedes is the host; otherwise the host
    /// starts at the first letter after a number (`-1`, `0`, `N/A`, `1e+06`). The log line comes
    /// back with its host corrected; `None` when it starts the line. Whether the text before is a
    /// piece of a row is the caller's call (NCCL ≥ 2.23 puts the date before a WARN line).
    pub(super) fn spliced_after(
        mut self,
        line: &'a str,
        known: impl Fn(&str) -> bool,
    ) -> Option<(&'a str, DebugLine<'a>)> {
        let (at, host) = (self.host_at?, self.host?);
        if line[..at].trim().is_empty() {
            return None;
        }
        let glue = if known(host) {
            0
        } else {
            (1..host.len())
                .filter(|&i| host.is_char_boundary(i) && is_number(&host[..i]))
                .find(|&i| known(&host[i..]))
                .or_else(|| glued_number(host))
                .unwrap_or(0)
        };
        self.host = Some(&host[glue..]);
        Some((&line[..at + glue], self))
    }
}

/// How long the number glued before a host name is (`-1` of `-1gpu1`, `N/A` of `N/Agpu1`,
/// `1e+06` of `1e+06gpu1`), when a letter starts the rest.
fn glued_number(word: &str) -> Option<usize> {
    let unsigned = word.strip_prefix('-').unwrap_or(word);
    let sign = word.len() - unsigned.len();
    let number = if unsigned.starts_with("N/A") {
        3
    } else {
        let digits = unsigned.bytes().take_while(|b| b.is_ascii_digit() || *b == b'.').count();
        // `%g`'s exponent: a host name has no `+`, so `e+06` belongs to the number.
        let exponent = unsigned[digits..]
            .strip_prefix("e+")
            .or_else(|| unsigned[digits..].strip_prefix("e-"))
            .map_or(0, |rest| rest.bytes().take_while(u8::is_ascii_digit).count());
        if exponent > 0 { digits + 2 + exponent } else { digits }
    };
    let rest = &unsigned[number..];
    (number > 0 && rest.starts_with(|c: char| c.is_ascii_alphabetic())).then_some(sign + number)
}

/// The level a word names (`INFO`, `WARN`, `TRACE`).
fn level(word: &str) -> Option<Level> {
    match word {
        "INFO" => Some(Level::Info),
        "WARN" => Some(Level::Warn),
        "TRACE" => Some(Level::Trace),
        _ => None,
    }
}

/// Where the marker of a log line is, its level, and what follows it: `NCCL INFO`, or (NCCL up
/// to 2.2, whose `debug.h` printed no `NCCL`) a bare `INFO`/`WARN` right after `host:pid:tid
/// [dev]` (and a WARN's `file.cu:line`), as in horovod/horovod#489: `nmyjs-202-75:24503:24695
/// [4] INFO NET/IB: [0] mlx4_0:1/IB`. The bare form needs that prefix, so that another
/// program's `INFO` word is not taken for NCCL's.
fn marker(line: &str) -> Option<(usize, Level, &str)> {
    let words = |at: usize| {
        let rest = &line[at..];
        let (word, after) = rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len()));
        level(word).map(|l| (l, after))
    };
    let starts_word = |at: usize| line[..at].chars().next_back().is_none_or(char::is_whitespace);
    let current = line.match_indices("NCCL ").find_map(|(at, _)| {
        let (level, after) = words(at + 5)?;
        starts_word(at).then_some((at, level, after))
    });
    current.or_else(|| {
        let prefix = words_at(line);
        let host = prefix.iter().position(|(_, w)| host_pid_tid(w).is_some())?;
        let (_, device) = prefix.get(host + 1)?;
        if !(device.starts_with('[') && device.ends_with(']')) {
            return None;
        }
        // The level right after the device, or after a WARN's `misc/ibvwrap.cu:60`.
        let at = match &prefix[host + 2..] {
            [(at, w), ..] if level(w).is_some() => *at,
            [(_, source), (at, w), ..] if source.contains(':') && level(w).is_some() => *at,
            _ => return None,
        };
        let (level, after) = words(at)?;
        Some((at, level, after))
    })
}

/// Splits `line` when it carries an `NCCL INFO|WARN|TRACE` marker (or NCCL 2.2's bare one).
pub(super) fn split(line: &str) -> Option<DebugLine<'_>> {
    let (at, level, after) = marker(line)?;
    let prefix: Vec<(usize, &str)> = words_at(&line[..at]);
    let host_word = prefix.iter().position(|(_, w)| host_pid_tid(w).is_some());
    let host = host_word.and_then(|i| host_pid_tid(prefix[i].1));
    let host_at = host_word.map(|i| prefix[i].0);
    let prefix: Vec<&str> = prefix.into_iter().map(|(_, w)| w).collect();
    let device =
        host_word.and_then(|i| prefix.get(i + 1)).and_then(|w| w.strip_prefix('[')?.strip_suffix(']')?.parse().ok());
    let source = prefix
        .last()
        .filter(|w| !w.starts_with('[') && w.contains(':'))
        .filter(|_| host_word.is_none_or(|i| i + 1 != prefix.len()))
        .copied();
    Some(DebugLine { host, device, source, level, message: after.trim(), host_at })
}

/// The whitespace-separated words of `text` with where each starts.
fn words_at(text: &str) -> Vec<(usize, &str)> {
    text.split_whitespace().map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w)).collect()
}

/// `host` from `host:pid:tid`.
fn host_pid_tid(word: &str) -> Option<&str> {
    let mut parts = word.rsplitn(3, ':');
    let (tid, pid, host) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(tid) && digits(pid) && !host.is_empty() && !host.contains(['[', ']'])).then_some(host)
}

/// A WARN message as stored: cut to [`MESSAGE_CHARS`] characters.
pub(super) fn message(text: &str) -> String {
    clip(text, MESSAGE_CHARS)
}

/// One network device of a `NET/IB : Using [0]mlx5_0:1/RoCE ...` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NetDevice {
    /// `mlx5_0:1` (device and port).
    pub(super) name: String,
    /// What follows the name: `IB`, `RoCE`, `IB/SHARP`.
    pub(super) link: String,
}

/// The devices and OOB interface of a `NET/IB : Using ...` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IbUsing {
    pub(super) devices: Vec<NetDevice>,
    /// The interface before `:` in `; OOB eth0:10.0.0.1<0>`.
    pub(super) oob_interface: Option<String>,
}

static IB_DEVICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\d+\]([^\s\[\]/]+)/([^\s\[\];]+)").expect("valid regex"));

/// `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>` (also a plugin's
/// `NET/IBext_v8 : Using ...`).
pub(super) fn ib_using(message: &str) -> Option<IbUsing> {
    let rest = message.strip_prefix("NET/IB")?;
    let (_, list) = rest.split_once("Using ")?;
    // `Using interface eth0 for sideband communication` is NCCL 2.3's OOB line: see [`sideband`].
    if list.starts_with("interface ") {
        return None;
    }
    let (devices, oob) = match list.split_once("; OOB ") {
        Some((devices, oob)) => (devices, Some(oob)),
        None => (list, None),
    };
    let devices = IB_DEVICE
        .captures_iter(devices)
        .map(|c| NetDevice { name: c[1].to_string(), link: c[2].to_string() })
        .collect();
    Some(IbUsing { devices, oob_interface: oob.and_then(interface) })
}

/// NCCL up to 2.3's list of HCAs: `NET/IB: [0] mlx4_0:1/IB [1] mlx5_0:1/RoCE` (a space after
/// each index; horovod/horovod#489).
pub(super) fn ib_list_old(message: &str) -> Option<Vec<NetDevice>> {
    let rest = message.strip_prefix("NET/IB:")?.trim_start();
    let devices: Vec<NetDevice> = OLD_IB_DEVICE
        .captures_iter(rest)
        .map(|c| NetDevice { name: c[1].to_string(), link: c[2].to_string() })
        .collect();
    (rest.starts_with('[') && !devices.is_empty()).then_some(devices)
}

static OLD_IB_DEVICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\d+\]\s+([^\s\[\]/]+)/([^\s\[\];]+)").expect("valid regex"));

/// NCCL up to 2.3's `NET : Using interface eth0:10.0.0.1<0>`, one line per interface it found
/// for its sockets (bootstrap and the socket transport alike; NVIDIA/nccl#207): the interface.
pub(super) fn socket_interface_old(message: &str) -> Option<String> {
    let rest = message.strip_prefix("NET")?.trim_start().strip_prefix(':')?;
    interface(rest.trim_start().strip_prefix("Using interface ")?)
}

/// NCCL up to 2.3's `NET/IB : Using interface eth0 for sideband communication`: the interface
/// NET/IB exchanges its connection data over (the later `; OOB eth0`). It says nothing of
/// whether IB then carries the data (NVIDIA/nccl#207 prints it, then `Using internal Network
/// Socket`).
pub(super) fn sideband(message: &str) -> Option<String> {
    let rest = message.strip_prefix("NET/IB")?.trim_start().strip_prefix(':')?.trim_start();
    let name = rest.strip_prefix("Using interface ")?.strip_suffix(" for sideband communication")?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_string())
}

/// `NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:...`: the interfaces.
pub(super) fn socket_using(message: &str) -> Option<Vec<String>> {
    let rest = message.strip_prefix("NET/Socket")?;
    let (_, list) = rest.split_once("Using ")?;
    Some(
        list.split_whitespace()
            .filter_map(|w| w.strip_prefix('[').and_then(|w| w.split_once(']')))
            .filter_map(|(_, dev)| interface(dev))
            .collect(),
    )
}

/// `Bootstrap : Using eth0:10.0.0.1<0>` (NCCL < 2.26 spells `Bootstrap :`, later `Bootstrap:`;
/// very old versions put `[0]` before the interface).
pub(super) fn bootstrap(message: &str) -> Option<String> {
    let rest = message.strip_prefix("Bootstrap")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix("Using ")?;
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or(r, |(_, r)| r),
        None => rest,
    };
    interface(rest)
}

/// `eth0` from `eth0:10.0.0.1<0>`.
fn interface(text: &str) -> Option<String> {
    let (name, _) = text.trim().split_once(':')?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_string())
}

/// `Using network IB` (NCCL ≥ 2.4; up to 2.3 `Using internal Network IB`): the network module
/// chosen.
pub(super) fn network(message: &str) -> Option<&str> {
    let name =
        message.strip_prefix("Using network ").or_else(|| message.strip_prefix("Using internal Network "))?.trim();
    (!name.is_empty()).then_some(name)
}

/// A channel connected through the network: `Channel 00/0 : 0[0] -> 1[0] [send] via
/// NET/IB/1/GDRDMA`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NetChannel<'a> {
    /// The network module: `IB`, `IBext_v8`, `Socket`.
    pub(super) network: &'a str,
    /// The index of the network device in the host's `NET/IB : Using [i]...` list (`1` of
    /// `NET/IB/1`, also of `NET/IB/1(3)` where rank 3 proxies it over NVLink: PXN).
    pub(super) device: Option<u32>,
    /// Whether the path uses GPUDirect RDMA.
    pub(super) gdr: bool,
    /// The logging rank's receiving side (`[receive]`), where GPUDirect RDMA matters whatever
    /// NCCL_NET_GDR_READ says of the sending side.
    pub(super) receive: bool,
}

/// Reads a channel line through the network (NCCL < 2.5 said `Ring 00 : 1 -> 4 [send] via
/// NET/IB/1/GDRDMA`).
pub(super) fn net_channel(message: &str) -> Option<NetChannel<'_>> {
    if !message.starts_with("Channel ") && !message.starts_with("Ring ") {
        return None;
    }
    let (_, via) = message.split_once(" via NET/")?;
    let mut parts = via.split(['/', ' ']);
    let network = parts.next().and_then(|n| n.split('(').next()).filter(|n| !n.is_empty())?;
    let device = parts.next().and_then(|d| d.split('(').next()?.parse().ok());
    Some(NetChannel { network, device, gdr: via.contains("/GDRDMA"), receive: message.contains("[receive]") })
}

/// A channel line between GPUs of one host (`Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read`,
/// `via SHM/direct/direct`): no network in it.
pub(super) fn local_channel(message: &str) -> bool {
    (message.starts_with("Channel ") || message.starts_with("Ring "))
        && (message.contains(" via P2P/") || message.contains(" via SHM/"))
}

static RING_GDR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:Connected all rings|connected rings).*\bGDR (\d)\s*$").expect("valid regex"));

/// `Connected all rings, use ring PXN 0 GDR 0` (NCCL ≥ 2.19): whether every rank of the
/// communicator uses GPUDirect RDMA (NCCL ANDs the ranks' flags before printing it).
pub(super) fn ring_gdr(message: &str) -> Option<bool> {
    RING_GDR.captures(message).map(|c| &c[1] != "0")
}

/// What a `GPU Direct RDMA ...` line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GdrLine {
    /// `GPU Direct RDMA Enabled|Disabled for GPU 1b000 / HCA 0 (distance 4 <= 5)`: NCCL's
    /// decision for one GPU-NIC path.
    Path(bool),
    /// `NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0'`, `... Disabled
    /// for HCA 0 'mlx5_0' (no module)`: whether the adapter can do it at all (peermem/DMA-BUF).
    Capability(bool),
}

/// Reads a `GPU Direct RDMA ...` line.
pub(super) fn gdr_line(message: &str) -> Option<GdrLine> {
    let (_, rest) = message.split_once("GPU Direct RDMA ")?;
    let lower = rest.to_ascii_lowercase();
    let enabled = if lower.contains("enabled for") {
        true
    } else if lower.contains("disabled for") {
        false
    } else {
        return None;
    };
    if lower.contains("for gpu") {
        Some(GdrLine::Path(enabled))
    } else if lower.contains("for hca") {
        Some(GdrLine::Capability(enabled))
    } else {
        None
    }
}

static ENV: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(NCCL_[A-Z0-9_]+) set (?:by environment )?to (.*)$").expect("valid regex"));

/// `NCCL_IB_HCA set by environment to mlx5_0` and `NCCL_IB_HCA set to mlx5_0` (NCCL ≥ 2.19);
/// integer variables end with a `.` (`NCCL_IB_GID_INDEX set by environment to 3.`), which is
/// dropped.
pub(super) fn env(message: &str) -> Option<(String, String)> {
    let c = ENV.captures(message)?;
    let value = c[2].trim();
    let value = match value.strip_suffix('.') {
        Some(number) if number.parse::<i64>().is_ok() => number,
        _ => value,
    };
    Some((c[1].to_string(), value.to_string()))
}

/// The fields of a `Got completion from peer ...` WARN (a failed RDMA work completion).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Completion {
    pub(super) peer: Option<String>,
    pub(super) status: Option<u32>,
    pub(super) opcode: Option<String>,
    pub(super) vendor_err: Option<u32>,
    pub(super) hca: Option<String>,
    /// `(Send)` or `(Recv)`: which side of the work request failed.
    pub(super) direction: Option<String>,
    /// `localGid G` (NCCL prints GIDs only for an Ethernet link layer: RoCE).
    pub(super) local_gid: Option<String>,
    /// `remoteGids G`, also printed with no space (`remoteGids::ffff:10.0.0.2`).
    pub(super) remote_gid: Option<String>,
}

static STATUS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:status=(?:[A-Za-z_]+\()?|with error )(\d+)").expect("valid regex"));
static OPCODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"opcode[= ]([^\s,]+)").expect("valid regex"));
static VENDOR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"vendor[ _]err[= ](\d+)").expect("valid regex"));
static DIRECTION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\((Send|Recv)\)").expect("valid regex"));
/// A GID as NCCL prints it: IPv6 text (`fe80::ba3f:...`, `::ffff:10.0.0.1`).
static LOCAL_GID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"localGid\s*([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)").expect("valid regex"));
static REMOTE_GID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"remoteGids?\s*([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)").expect("valid regex"));

/// Reads the four forms NCCL has printed:
///
/// ```text
/// NET/IB : Got completion with error 12, opcode 1, len 32768, vendor err 129
/// NET/IB : Got completion from peer P with error 4, opcode 0, len 0, vendor err 81 (Send)
/// NET/IB : Got completion from peer P with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid G remoteGids G [hca mlx5_0]
/// NET/IB: Got completion from peer P with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129  localGid G remoteGids G hca mlx5_0
/// ```
pub(super) fn completion(message: &str) -> Option<Completion> {
    let (peer, rest) = match message.split_once("Got completion from peer ") {
        Some((_, rest)) => (rest.split_whitespace().next(), rest),
        // Older NCCL named no peer: `Got completion with error 4, opcode 1, len 0, vendor err 81`.
        None => (
            None,
            message.split_once("Got completion ").map(|(_, rest)| rest).filter(|r| r.starts_with("with error "))?,
        ),
    };
    let number = |re: &Regex| re.captures(rest).and_then(|c| c[1].parse().ok());
    Some(Completion {
        peer: peer.map(str::to_string),
        status: number(&STATUS),
        opcode: OPCODE.captures(rest).map(|c| c[1].to_string()),
        vendor_err: number(&VENDOR),
        hca: rest.split_once(" hca ").and_then(|(_, h)| h.split_whitespace().next()).map(str::to_string),
        direction: DIRECTION.captures(rest).map(|c| c[1].to_string()),
        local_gid: LOCAL_GID.captures(rest).map(|c| c[1].to_string()),
        remote_gid: REMOTE_GID.captures(rest).map(|c| c[1].to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_prefixes_launchers_add() {
        let l = split("gpu1:12:34 [3] misc/socket.cc:397 NCCL WARN Net : x").expect("debug line");
        assert_eq!((l.host, l.device), (Some("gpu1"), Some(3)));
        assert_eq!((l.source, l.level, l.message), (Some("misc/socket.cc:397"), Level::Warn, "Net : x"));
        let l = split("[2025-06-01 10:00:00] gpu1:12:34 [3] init.cc:10 NCCL WARN y").expect("line");
        assert_eq!((l.host, l.source), (Some("gpu1"), Some("init.cc:10")));
        let l = split("gpu1:12:34 [0] NCCL INFO").expect("cut after the marker");
        assert_eq!((l.host, l.source, l.message), (Some("gpu1"), None, ""));
        assert!(split("NCCL version 2.19.3+cuda12.3").is_none());
        assert!(split("xNCCL INFO y").is_none());
    }

    /// NCCL up to 2.2 printed no `NCCL` before the level (horovod/horovod#98 and #489).
    #[test]
    fn bare_levels_after_the_host_and_device() {
        let l =
            split("admin-pc:14733:14828 [1] misc/ibvwrap.cu:60 WARN Failed to open libibverbs.so[.1]").expect("warn");
        assert_eq!((l.host, l.device, l.source), (Some("admin-pc"), Some(1), Some("misc/ibvwrap.cu:60")));
        assert_eq!((l.level, l.message), (Level::Warn, "Failed to open libibverbs.so[.1]"));
        let l = split("cx50:18926:19004 [1] INFO NET : Using interface eno1:192.168.12.50<0>").expect("info");
        assert_eq!(
            (l.host, l.level, l.message),
            (Some("cx50"), Level::Info, "NET : Using interface eno1:192.168.12.50<0>")
        );
        // Another program's INFO, and a bare level without NCCL's prefix, are not NCCL's.
        assert!(split("INFO 09-12 23:40:47 utils.py:977] Found nccl from library libnccl.so.2").is_none());
        assert!(split("gpu1:12:34 INFO x").is_none());
        assert!(split("gpu1:12:34 [0] a b INFO x").is_none());
    }

    #[test]
    fn nccl_2_3_net_lines() {
        assert_eq!(socket_interface_old("NET : Using interface lo:127.0.0.1<0>").as_deref(), Some("lo"));
        assert_eq!(socket_interface_old("NET/Socket : 1 interfaces found"), None);
        assert_eq!(sideband("NET/IB : Using interface ib0 for sideband communication").as_deref(), Some("ib0"));
        assert_eq!(ib_using("NET/IB : Using interface ib0 for sideband communication"), None);
        let old = ib_list_old("NET/IB: [0] mlx4_0:1/IB [1] mlx5_0:1/RoCE").expect("list");
        assert_eq!(
            old.iter().map(|d| (d.name.as_str(), d.link.as_str())).collect::<Vec<_>>(),
            [("mlx4_0:1", "IB"), ("mlx5_0:1", "RoCE")]
        );
        assert_eq!(network("Using internal Network Socket"), Some("Socket"));
    }

    #[test]
    fn net_lines() {
        let u = ib_using("NET/IB : Using [0]mlx5_1:1/IB/SHARP [1]mlx5_2:1/RoCE [RO]; OOB ens7:172.27.32.104<0>")
            .expect("using");
        assert_eq!(u.devices[0].name, "mlx5_1:1");
        assert_eq!(u.devices[0].link, "IB/SHARP");
        assert_eq!(u.devices[1].link, "RoCE");
        assert_eq!(u.oob_interface.as_deref(), Some("ens7"));
        assert_eq!(
            socket_using("NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.1.1<0>"),
            Some(vec!["eth0".to_string(), "eth1".to_string()])
        );
        assert_eq!(bootstrap("Bootstrap : Using [0]ib0:10.0.0.1<0>").as_deref(), Some("ib0"));
        assert_eq!(
            net_channel("Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/2(1)/GDRDMA"),
            Some(NetChannel { network: "IB", device: Some(2), gdr: true, receive: false })
        );
        assert_eq!(
            net_channel("Ring 00 : 1 -> 4 [send] via NET/Socket/1"),
            Some(NetChannel { network: "Socket", device: Some(1), gdr: false, receive: false })
        );
        assert_eq!(
            net_channel("Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/1"),
            Some(NetChannel { network: "IB", device: Some(1), gdr: false, receive: true })
        );
        assert_eq!(net_channel("Channel 00 : 0[0] -> 1[0] via P2P/IPC"), None);
        assert_eq!(ring_gdr("Connected all rings, use ring PXN 1 GDR 1"), Some(true));
        assert_eq!(
            gdr_line("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"),
            Some(GdrLine::Capability(false))
        );
        assert_eq!(
            gdr_line("GPU Direct RDMA Enabled for GPU 81000 / HCA 1 (distance 6 <= 7), read 0"),
            Some(GdrLine::Path(true))
        );
        assert_eq!(env("NCCL_IB_GID_INDEX set by environment to 3."), Some(("NCCL_IB_GID_INDEX".into(), "3".into())));
    }

    #[test]
    fn newest_completion_form() {
        let c = completion(
            "NET/IB: Got completion from peer 10.0.0.2<5000> with status=IBV_WC_RETRY_EXC_ERR(12) \
             opcode=IBV_WC_SEND(0) vendor_err=129  localGid ::ffff:10.0.0.1 remoteGids ::ffff:10.0.0.2 hca mlx5_3",
        )
        .expect("completion");
        assert_eq!((c.status, c.vendor_err), (Some(12), Some(129)));
        assert_eq!(c.opcode.as_deref(), Some("IBV_WC_SEND(0)"));
        assert_eq!(c.hca.as_deref(), Some("mlx5_3"));
        assert_eq!(
            (c.local_gid.as_deref(), c.remote_gid.as_deref()),
            (Some("::ffff:10.0.0.1"), Some("::ffff:10.0.0.2"))
        );
    }

    #[test]
    fn gids_in_ipv6_and_with_no_space_and_the_failed_side() {
        let c = completion(
            "NET/IB : Got completion from peer 10.0.0.2<44206> with status=12 opcode=0 len=0 vendor err 129 (Recv) \
             localGid fe80::ba3f:d2ff:fe12:3456 remoteGidsfe80::ba3f:d2ff:fe12:3457",
        )
        .expect("completion");
        assert_eq!(c.direction.as_deref(), Some("Recv"));
        assert_eq!(c.local_gid.as_deref(), Some("fe80::ba3f:d2ff:fe12:3456"));
        assert_eq!(c.remote_gid.as_deref(), Some("fe80::ba3f:d2ff:fe12:3457"));
        let c = completion("NET/IB : Got completion from peer x with status=5 vendor err 249 (Send) localGid ::ffff:29.87.1.1 remoteGids::ffff:29.87.1.2").unwrap();
        assert_eq!((c.direction.as_deref(), c.remote_gid.as_deref()), (Some("Send"), Some("::ffff:29.87.1.2")));
        let old = completion("NET/IB : Got completion from peer p with error 4, opcode 0, len 0, vendor err 81 (Send)")
            .unwrap();
        assert_eq!((old.local_gid, old.remote_gid, old.direction.as_deref()), (None, None, Some("Send")));
    }
}
