//! The rendezvous behind PyTorch's `env://` (its `TCPStore`, reduced to what NCCL needs): rank 0
//! listens on `MASTER_PORT`, every other rank connects to `MASTER_ADDR:MASTER_PORT` and receives
//! rank 0's bytes (NCCL's unique id). It carries one message at start-up and no tensor: the
//! collectives themselves are NCCL's.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

const OP: &str = "init_process_group(env://)";

/// Where rank 0 listens and the others connect: PyTorch's `MASTER_ADDR` and `MASTER_PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendezvous {
    /// Rank 0's host name or address.
    pub addr: String,
    /// The port rank 0 listens on.
    pub port: u16,
}

impl Rendezvous {
    /// From `MASTER_ADDR` and `MASTER_PORT` in `get`, when both are set.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Rendezvous>> {
        match (get("MASTER_ADDR"), get("MASTER_PORT")) {
            (Some(addr), Some(port)) => {
                let port = port
                    .trim()
                    .parse::<u16>()
                    .map_err(|_| Error::invalid(OP, format!("MASTER_PORT={port:?} is not a port number (1-65535)")))?;
                Ok(Some(Rendezvous { addr: addr.trim().to_string(), port }))
            }
            (None, None) => Ok(None),
            _ => Err(Error::invalid(OP, "set both MASTER_ADDR and MASTER_PORT (torchrun does), or neither")),
        }
    }

    /// Rank 0: sends `payload` to each of the `world - 1` other ranks as they connect.
    pub fn serve(&self, world: usize, payload: &[u8], timeout: Duration) -> Result<()> {
        let listener = TcpListener::bind(("0.0.0.0", self.port)).map_err(|e| {
            Error::invalid(
                OP,
                format!("rank 0 cannot listen on port {} (MASTER_PORT): {e}; choose a free port", self.port),
            )
        })?;
        listener.set_nonblocking(true).map_err(|e| Error::invalid(OP, e.to_string()))?;
        let start = Instant::now();
        let mut served = 0;
        while served + 1 < world {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).map_err(|e| Error::invalid(OP, e.to_string()))?;
                    let len = (payload.len() as u32).to_le_bytes();
                    s.write_all(&len).and_then(|_| s.write_all(payload)).map_err(|e| {
                        Error::invalid(OP, format!("rank 0 could not send the rendezvous to a rank: {e}"))
                    })?;
                    served += 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if start.elapsed() > timeout {
                        return Err(Error::invalid(
                            OP,
                            format!(
                                "rank 0 heard from {served} of the {} other ranks within {} s on port {}; check that \
                                 every rank was started with WORLD_SIZE={world} and MASTER_ADDR pointing here",
                                world - 1,
                                timeout.as_secs(),
                                self.port
                            ),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(Error::invalid(OP, format!("rank 0 accepting on port {}: {e}", self.port))),
            }
        }
        Ok(())
    }

    /// Any other rank: connects (retrying while rank 0 starts) and returns rank 0's payload.
    pub fn fetch(&self, rank: usize, timeout: Duration) -> Result<Vec<u8>> {
        let start = Instant::now();
        let target = format!("{}:{}", self.addr, self.port);
        loop {
            let addrs = target
                .to_socket_addrs()
                .map_err(|e| Error::invalid(OP, format!("MASTER_ADDR {:?} does not resolve: {e}", self.addr)))?;
            let mut last = None;
            for a in addrs {
                match TcpStream::connect_timeout(&a, Duration::from_secs(1)) {
                    Ok(mut s) => {
                        s.set_read_timeout(Some(timeout)).map_err(|e| Error::invalid(OP, e.to_string()))?;
                        let mut len = [0u8; 4];
                        let mut read = || -> std::io::Result<Vec<u8>> {
                            s.read_exact(&mut len)?;
                            let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
                            s.read_exact(&mut buf)?;
                            Ok(buf)
                        };
                        return read().map_err(|e| {
                            Error::invalid(OP, format!("rank {rank} connected to {target} but got no rendezvous: {e}"))
                        });
                    }
                    Err(e) => last = Some(e),
                }
            }
            if start.elapsed() > timeout {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "rank {rank} could not reach rank 0 at {target} (MASTER_ADDR:MASTER_PORT) within {} s: {}",
                        timeout.as_secs(),
                        last.map_or("no address".to_string(), |e| e.to_string())
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
