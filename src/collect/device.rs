//! Running the catalogue on devices: `--forks` devices at a time, each on one connection, its
//! commands in parallel on that connection's channels, counters read before and after the window.
//!
//! # Errors
//! Nothing here fails a run. A device that cannot be reached gets `DeviceRecord::error`; a command
//! that fails keeps its exit status and stderr (or its transport error) in its evidence. One this
//! machine has no file descriptor left to connect to is retried, then `collect.fd_limit`
//! ([`super::connections`]).

use super::commands::Commands;
use super::connections::{Connections, Place};
use super::window::Window;
use crate::evidence::{DeviceError, DeviceRecord};
use crate::facts::ports::discover_ports;
use crate::platform::linux::{
    capture_probes, counter_probes, host_probes, iblinkinfo_probe, lldp_probe, netdev_probes,
};
use crate::platform::{self, Probe, ports_to_query};
use crate::transport::{FD_LIMIT, LocalSession, Session, SshOptions, SshSession, SshTarget, TransportError};
use indicatif::ProgressBar;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// How to reach a device.
#[derive(Debug, Clone)]
pub enum Reach {
    /// Over SSH.
    Ssh(Box<SshTarget>),
    /// This machine.
    Local,
}

/// One device to collect from.
#[derive(Debug, Clone)]
pub struct DeviceTarget {
    /// Inventory name.
    pub name: String,
    /// `host`, `leaf`...
    pub role: String,
    /// `linux`...
    pub platform: String,
    /// Shown in reports.
    pub address: String,
    /// NICs named in the inventory.
    pub nics: Vec<String>,
    /// Read the whole InfiniBand fabric's links from here (`iblinkinfo`): one host is enough.
    pub ib_fabric_view: bool,
    /// The inventory's read-only capture command (`fabcheck_capture_command`), `{netdev}` in it
    /// for each RoCE port; run with `--capture` only.
    pub capture_command: Option<String>,
    /// A collector's read-only command printing `rdma-flow-record/1` JSON Lines
    /// (`fabcheck_flows_command`).
    pub flows_command: Option<String>,
    /// How to reach it.
    pub reach: Reach,
}

/// Settings of one collection run.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// SSH settings.
    pub ssh: SshOptions,
    /// Devices worked on at once.
    pub forks: usize,
    /// What separates the two counter reads.
    pub window: Window,
    /// Read the hosts' LLDP neighbours too (when switches are audited, for the topology).
    pub host_lldp: bool,
    /// Run the hosts' capture command on each RoCE port during the window (`--capture`).
    pub capture: bool,
    /// The longest a device may take over its own work (connecting, configuration and first
    /// counter read; then its second read), the counter window apart.
    pub device_timeout: std::time::Duration,
    /// Ends the counter window early (SIGINT, SIGTERM), so what was collected is still judged.
    pub interrupt: super::window::Interrupt,
}

/// Devices whose evidence is written and judged at once.
const BLOCKING_SLOTS: usize = 4;

/// The counter reads of one device, for a phase (`t0`, `t1`).
type CounterPlan = Box<dyn Fn(&str) -> Vec<Probe> + Send + Sync>;

/// `--forks` slots for the first phase (connect, configuration, first counter read) and as many
/// for the second counter read, and the connections open.
struct Forks {
    first: Semaphore,
    second: Semaphore,
    connections: Connections,
}

/// Progress bars, one per phase (hidden when stderr is not a terminal).
#[derive(Clone)]
pub struct Progress {
    /// Devices whose configuration and first counter read are done.
    pub collect: ProgressBar,
    /// Devices whose second counter read is done.
    pub counters: ProgressBar,
}

/// Collects every target and hands each record to `on_device` as soon as it is complete, so its
/// evidence is written and judged while the others are still running and its raw outputs need
/// not stay in memory. What `on_device` returns comes back in target order.
pub async fn collect_all<F, T>(
    targets: Vec<DeviceTarget>,
    options: &CollectOptions,
    progress: Progress,
    on_device: F,
) -> Vec<T>
where
    F: Fn(DeviceRecord) -> T + Send + Sync + 'static,
    T: Send + 'static,
{
    // More slots than devices is one each; and a slot count past the semaphore's own maximum
    // (`--forks 18446744073709551615`) would panic.
    let slots = options.forks.clamp(1, targets.len().max(1));
    let forks = Arc::new(Forks {
        first: Semaphore::new(slots),
        second: Semaphore::new(slots),
        connections: Connections::within_fd_limit(),
    });
    let on_device = Arc::new(on_device);
    let blocking = Arc::new(Semaphore::new(BLOCKING_SLOTS));
    let mut tasks = JoinSet::new();
    // What to report for a task that dies (a bug): its device is a finding, never missing.
    let mut skeletons = std::collections::HashMap::new();
    for (index, target) in targets.into_iter().enumerate() {
        let (forks, options, progress, on_device, blocking) =
            (forks.clone(), options.clone(), progress.clone(), on_device.clone(), blocking.clone());
        let skeleton = skeleton(&target);
        let task = tasks.spawn(async move {
            let record = collect_device(target, &options, &forks, &progress).await;
            // Writing evidence and parsing are blocking work: keep them off the SSH tasks' threads,
            // a few at a time (many threads creating files at once contend in the file system's
            // journal and make every file slower).
            let _slot = blocking.acquire().await;
            let on_device = on_device.clone();
            tokio::task::spawn_blocking(move || (index, on_device(record))).await
        });
        skeletons.insert(task.id(), (index, skeleton));
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next_with_id().await {
        match joined {
            Ok((_, Ok(pair))) => results.push(pair),
            Ok((id, Err(_))) => results.extend(internal_error(&skeletons, id, &*on_device)),
            Err(e) => results.extend(internal_error(&skeletons, e.id(), &*on_device)),
        }
    }
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// A device's record before anything is collected.
fn skeleton(target: &DeviceTarget) -> DeviceRecord {
    DeviceRecord {
        name: target.name.clone(),
        role: target.role.clone(),
        platform: target.platform.clone(),
        address: target.address.clone(),
        nics: target.nics.clone(),
        error: None,
        outputs: Vec::new(),
    }
}

/// The result for a device whose task died: `collect.internal_error`.
fn internal_error<T>(
    skeletons: &std::collections::HashMap<tokio::task::Id, (usize, DeviceRecord)>,
    id: tokio::task::Id,
    on_device: &(dyn Fn(DeviceRecord) -> T + Send + Sync),
) -> Option<(usize, T)> {
    let (index, skeleton) = skeletons.get(&id)?;
    let message = "fabcheck failed while collecting from this device (a bug: please report it)".to_string();
    let record = DeviceRecord {
        error: Some(DeviceError { code: "collect.internal_error".into(), message }),
        ..skeleton.clone()
    };
    Some((*index, on_device(record)))
}

async fn collect_device(
    target: DeviceTarget,
    options: &CollectOptions,
    forks: &Forks,
    progress: &Progress,
) -> DeviceRecord {
    let mut record = skeleton(&target);
    // Whatever happens to this task, the benchmark's gate must not wait for it.
    let mut arrival = Arrival::new(&options.window, &record);
    let Some(permit) = unless_interrupted(options, forks.first.acquire()).await else {
        return stop(record, Stopped::Interrupt("before it was reached"), false, &mut arrival, progress, None).await;
    };
    let permit = permit.ok();
    // The device's own time, the counter window apart: connecting, its configuration and first
    // counter read; then, after the window, its second read.
    let deadline = tokio::time::Instant::now() + options.device_timeout;
    let connected = unless_interrupted(
        options,
        tokio::time::timeout_at(deadline, connect_within(&forks.connections, &target, options, deadline, progress)),
    );
    // The connection's place is kept until the device is done.
    let (session, _place) = match connected.await {
        Some(Ok(Ok((s, place)))) => (Arc::new(s), place),
        Some(Ok(Err(e))) => {
            record.error = Some(DeviceError { code: e.code().into(), message: e.to_string() });
            progress.collect.inc(1);
            progress.counters.inc(1);
            arrival.arrive(&record);
            return record;
        }
        Some(Err(_)) => {
            return stop(record, Stopped::Deadline(options, "connecting"), false, &mut arrival, progress, None).await;
        }
        None => return stop(record, Stopped::Interrupt("while connecting"), false, &mut arrival, progress, None).await,
    };
    // Linux hosts bound each command on the host itself (switch CLIs have no `timeout`).
    let on_linux_host = matches!(platform::kind(&target.role, &target.platform), platform::Kind::Host);
    let commands = Commands::new(session.clone(), options.ssh.command_timeout, on_linux_host);
    let first = unless_interrupted(
        options,
        tokio::time::timeout_at(deadline, async {
            let (counters, captures) = configuration(&target, options, &commands, &mut record).await;
            let first_read = Instant::now();
            record.outputs.extend(commands.run_all(counters("t0")).await);
            (counters, captures, first_read)
        }),
    )
    .await;
    let stage = "its configuration and first counter read";
    let (counters, captures, first_read) = match first {
        Some(Ok(done)) => done,
        Some(Err(_)) => {
            return stop(record, Stopped::Deadline(options, stage), false, &mut arrival, progress, Some(session)).await;
        }
        None => {
            let stopped = Stopped::Interrupt("during its configuration and first counter read");
            return stop(record, stopped, false, &mut arrival, progress, Some(session)).await;
        }
    };
    progress.collect.inc(1);
    // A device waiting out the window lets others start in its slot; its second read has slots
    // of its own, so it is not queued behind devices that have not started yet (which would keep
    // every connection of the fleet open at once).
    let window = async {
        match &options.window {
            Window::Gate(gate) => {
                drop(permit);
                arrival.arrive(&record);
                gate.wait_open().await;
                forks.second.acquire().await.ok()
            }
            Window::Sleep(window) => match window.checked_sub(first_read.elapsed()).filter(|rest| !rest.is_zero()) {
                Some(rest) => {
                    drop(permit);
                    tokio::select! {
                        () = tokio::time::sleep(rest) => {}
                        () = options.interrupt.wait() => {}
                    }
                    forks.second.acquire().await.ok()
                }
                None => None,
            },
        }
    };
    // The captures see the traffic of the window: the benchmark's, when it is the window.
    let (second_permit, captured) = tokio::join!(window, unless_interrupted(options, commands.run_all(captures)));
    record.outputs.extend(captured.unwrap_or_default());
    // After an interrupt the window is over, and the second read still made (the counters'
    // growth over the shortened window is what the operator stopped it for), within a grace.
    let second = tokio::select! {
        read = tokio::time::timeout(options.device_timeout, commands.run_all(counters("t1"))) => Some(read),
        () = async {
            options.interrupt.wait().await;
            tokio::time::sleep(INTERRUPT_GRACE).await;
        } => None,
    };
    drop(second_permit);
    match second {
        Some(Ok(second)) => record.outputs.extend(second),
        Some(Err(_)) => {
            let stopped = Stopped::Deadline(options, "its second counter read");
            return stop(record, stopped, true, &mut arrival, progress, Some(session)).await;
        }
        None => {
            let stopped = Stopped::Interrupt("and its second counter read did not finish within 3 s of it");
            return stop(record, stopped, true, &mut arrival, progress, Some(session)).await;
        }
    }
    progress.counters.inc(1);
    if let Ok(session) = Arc::try_unwrap(session) {
        session.close().await;
    }
    record
}

/// `work`'s outcome, or `None` when the run is interrupted first (at once if it already was):
/// an operator's SIGINT or SIGTERM cancels connects and commands in flight, so the run ends in
/// seconds, not after every timeout.
async fn unless_interrupted<T>(options: &CollectOptions, work: impl std::future::Future<Output = T>) -> Option<T> {
    tokio::select! {
        biased;
        () = options.interrupt.wait() => None,
        done = work => Some(done),
    }
}

/// Reads a device's configuration with its platform's catalogue (into `record`), and returns its
/// counter reads per phase and the commands to run during the window.
async fn configuration(
    target: &DeviceTarget,
    options: &CollectOptions,
    commands: &Commands,
    record: &mut DeviceRecord,
) -> (CounterPlan, Vec<Probe>) {
    // The hosts' captures (`--capture`) and a collector's flow records, read while the window is
    // open.
    let mut captures = Vec::new();
    let counters: CounterPlan = match platform::kind(&target.role, &target.platform) {
        platform::Kind::Switch(switch) => {
            record.outputs = commands.run_all((switch.config)()).await;
            let ports =
                ports_to_query(switch, record.stdout_ok("lldp").as_deref(), record.stdout_ok("config").as_deref());
            if let Some(per_port) = switch.ports {
                record.outputs.extend(commands.run_all(per_port(&ports)).await);
            }
            Box::new(move |phase| (switch.counters)(phase, &ports))
        }
        platform::Kind::FlowCollector => {
            captures.extend(target.flows_command.as_deref().map(crate::platform::flow_collector::flows_probe));
            Box::new(|_| Vec::new())
        }
        platform::Kind::Host => {
            let mut first = host_probes();
            if options.host_lldp {
                first.push(lldp_probe());
            }
            if target.ib_fabric_view {
                first.push(iblinkinfo_probe());
            }
            record.outputs = commands.run_all(first).await;
            let ports = discover_ports(record, &target.nics);
            let roce: Vec<String> = ports.iter().filter(|p| !p.infiniband).filter_map(|p| p.netdev.clone()).collect();
            let ib: Vec<(String, u32)> =
                ports.iter().filter(|p| p.infiniband).map(|p| (p.hca.clone(), p.port)).collect();
            let config: Vec<Probe> = roce.iter().filter_map(|n| netdev_probes(n)).flatten().collect();
            record.outputs.extend(commands.run_all(config).await);
            if let Some(template) = target.capture_command.as_deref().filter(|_| options.capture) {
                captures = capture_probes(template, &roce);
            }
            Box::new(move |phase| counter_probes(phase, &roce, &ib))
        }
        platform::Kind::Unsupported => {
            let message =
                format!("fabcheck has no command catalogue for platform `{}` (role {})", target.platform, target.role);
            record.error = Some(DeviceError { code: "collect.unsupported_platform".into(), message });
            Box::new(|_| Vec::new())
        }
    };
    (counters, captures)
}

/// Why a device's collection stopped before it was complete.
enum Stopped<'a> {
    /// `stage` did not finish within `--device-timeout`.
    Deadline(&'a CollectOptions, &'a str),
    /// The run was interrupted (`when`).
    Interrupt(&'a str),
}

/// A device whose collection stopped before it was complete: a `collect.device_timeout` or
/// `collect.interrupted` on it, judged on the outputs it gave, and the run goes on without
/// waiting for it.
async fn stop(
    mut record: DeviceRecord,
    stopped: Stopped<'_>,
    first_read_done: bool,
    arrival: &mut Arrival,
    progress: &Progress,
    session: Option<Arc<Session>>,
) -> DeviceRecord {
    let gave = record.outputs.len();
    record.error = Some(match stopped {
        Stopped::Deadline(options, stage) => DeviceError {
            code: DEVICE_TIMEOUT.into(),
            message: format!(
                "{stage} did not finish within --device-timeout ({} s): the run went on without it, and the {gave} outputs it gave are judged",
                options.device_timeout.as_secs_f64(),
            ),
        },
        Stopped::Interrupt(when) => DeviceError {
            code: INTERRUPTED.into(),
            message: format!("the run was interrupted {when}: the {gave} outputs it gave are judged"),
        },
    });
    if !first_read_done {
        progress.collect.inc(1);
    }
    progress.counters.inc(1);
    arrival.arrive(&record);
    // The connection goes; a server that does not answer even that is not waited for.
    if let Some(session) = session.and_then(|s| Arc::try_unwrap(s).ok()) {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), session.close()).await;
    }
    record
}

/// The code of a device whose collection an operator's interrupt cut short.
pub const INTERRUPTED: &str = "collect.interrupted";

/// How long a second counter read may still take once the run is interrupted.
const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// The code of a device that did not finish within `--device-timeout`.
pub const DEVICE_TIMEOUT: &str = "collect.device_timeout";

/// A device's arrival at the benchmark's gate, made exactly once: by [`Arrival::arrive`], or
/// when the device's task ends without it (a panic unwinding), as `collect.internal_error`.
struct Arrival {
    gate: Option<Arc<super::window::Gate>>,
    skeleton: DeviceRecord,
}

impl Arrival {
    fn new(window: &Window, record: &DeviceRecord) -> Arrival {
        let gate = if let Window::Gate(gate) = window { Some(gate.clone()) } else { None };
        Arrival { gate, skeleton: record.clone() }
    }

    fn arrive(&mut self, record: &DeviceRecord) {
        if let Some(gate) = self.gate.take() {
            gate.arrive(record);
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            let message = "fabcheck stopped collecting from this device before the benchmark (a bug)".to_string();
            let error = Some(DeviceError { code: "collect.internal_error".into(), message });
            gate.arrive(&DeviceRecord { error, ..self.skeleton.clone() });
        }
    }
}

/// Connects to the device within the [`Connections`]' ceiling. Where the window lets devices go
/// on by themselves, a device waits for room, and one that meets the open-file limit all the same
/// is tried again (see [`Connections`]), until `deadline`; during a benchmark (the gate), devices
/// keep their connections until every one has arrived, so none would come free: such a device is
/// reported at once. Either way it is the auditor's limit, `collect.fd_limit`.
async fn connect_within<'c>(
    connections: &'c Connections,
    target: &DeviceTarget,
    options: &CollectOptions,
    deadline: tokio::time::Instant,
    progress: &Progress,
) -> Result<(Session, Place<'c>), TransportError> {
    let wait = matches!(options.window, Window::Sleep(_));
    let mut met = None;
    loop {
        // Both waits end at the deadline here, before the caller's timeout at the same instant
        // (the inner future is polled first), so the device is not a `collect.device_timeout`.
        let room = tokio::time::timeout_at(deadline, connections.room(wait, progress)).await;
        let Ok(Some(place)) = room else {
            return Err(met.unwrap_or_else(|| connections.no_room()));
        };
        match connect(&target.reach, options).await {
            Err(e) if e.code() == FD_LIMIT => {
                drop(place);
                connections.met(&e, progress);
                if !wait || tokio::time::timeout_at(deadline, connections.pause()).await.is_err() {
                    return Err(e);
                }
                met = Some(e);
            }
            result => return result.map(|session| (session, place)),
        }
    }
}

async fn connect(reach: &Reach, options: &CollectOptions) -> Result<Session, TransportError> {
    match reach {
        Reach::Ssh(target) => SshSession::connect(target, &options.ssh).await.map(|s| Session::Ssh(Box::new(s))),
        Reach::Local => Ok(Session::Local(LocalSession::new(options.ssh.max_output))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::Gate;
    use std::time::Duration;

    fn target(name: &str) -> DeviceTarget {
        DeviceTarget {
            name: name.into(),
            role: "host".into(),
            platform: "linux".into(),
            address: "local".into(),
            nics: vec![],
            ib_fabric_view: false,
            capture_command: None,
            flows_command: None,
            reach: Reach::Local,
        }
    }

    #[tokio::test]
    async fn a_device_whose_task_dies_still_arrives_at_the_gate_as_an_internal_error() {
        let gate = Gate::new(2);
        let window = Window::Gate(gate.clone());
        Arrival::new(&window, &skeleton(&target("gpu01"))).arrive(&skeleton(&target("gpu01")));
        let dying = tokio::spawn({
            let window = window.clone();
            async move {
                let _arrival = Arrival::new(&window, &skeleton(&target("gpu02")));
                panic!("a bug while collecting");
            }
        });
        assert!(dying.await.is_err());
        let arrived = tokio::time::timeout(Duration::from_secs(5), gate.first_reads()).await.expect("never waits");
        let codes: Vec<(&str, Option<&str>)> =
            arrived.iter().map(|r| (r.name.as_str(), r.error.as_ref().map(|e| e.code.as_str()))).collect();
        assert_eq!(codes, [("gpu01", None), ("gpu02", Some("collect.internal_error"))]);
    }

    #[test]
    fn a_dead_task_is_its_device_with_an_internal_error() {
        let mut skeletons = std::collections::HashMap::new();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let id = rt.block_on(async { tokio::spawn(async {}).id() });
        skeletons.insert(id, (3, skeleton(&target("gpu04"))));
        let (index, record) = internal_error(&skeletons, id, &|r: DeviceRecord| r).unwrap();
        assert_eq!((index, record.name.as_str()), (3, "gpu04"));
        assert_eq!(record.error.unwrap().code, "collect.internal_error");
    }
}
