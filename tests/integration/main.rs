//! Integration tests: the real `fabcheck` binary against the built-in lab (simulated hosts over
//! real SSH) and against OpenSSH's sshd.

mod accuracy;
mod bench;
mod changes;
mod cli;
mod docs_bound;
mod fabric;
mod flows;
mod host_keys;
mod html_layout;
mod incidents;
mod job;
mod k8s_recipes;
mod lab_designs;
mod lab_faults;
mod layers;
mod metrics;
mod nothing_lost;
mod openssh;
mod policy;
mod slurm;
mod snapshot;
mod util;
