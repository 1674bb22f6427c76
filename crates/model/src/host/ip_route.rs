//! Facts of `ip -j route show table all` (or its text form), as its parser
//! (`fabcheck_parse::linux::ip_route`) produces them.

use serde::Serialize;

/// Every route of every table.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IpRoutes {
    /// The routes, in the order printed.
    pub routes: Vec<IpRoute>,
}

/// One route.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IpRoute {
    /// `default`, `10.0.0.0/24`, `10.0.0.1` (a host).
    pub dst: String,
    /// The route type: `unicast` (iproute2 prints it only for other types), `local`, `broadcast`.
    pub kind: String,
    /// The table: `main` (iproute2 leaves it out for the main table), `local`, `152`.
    pub table: String,
    /// The device the route leaves by.
    pub dev: Option<String>,
    /// `via` address.
    pub gateway: Option<String>,
    /// `src`: the preferred source address.
    pub prefsrc: Option<String>,
    /// `kernel` for the routes the kernel adds with an address (the connected subnet), `static`,
    /// `dhcp` ...; `boot` when not printed.
    pub protocol: String,
    /// `link`, `host`; `global` when not printed.
    pub scope: String,
    /// `metric` (the kernel's priority among routes to one destination), when printed.
    pub metric: Option<u32>,
    /// The route's flags as printed: `linkdown` (its device has no carrier: the kernel keeps the
    /// route but traffic on it goes nowhere), `onlink`, `dead`, `offload` ...
    pub flags: Vec<String>,
}
