//! TUN devices: layer-3 interfaces whose packets a process reads and writes
//! as whole IPv4 datagrams. Opened without IFF_TUN_EXCL persistence, a
//! device lives as long as its file descriptor: when the emulator exits —
//! normally, on Ctrl-C or by SIGKILL — the kernel removes it.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setns(f: &File) -> io::Result<()> {
    cvt(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) }).map(|_| ())
}

impl Tun {
    /// Create TUN device `name` inside the network namespace at `ns` (e.g.
    /// /proc/PID/ns/net). Only the calling thread moves, and it moves back.
    pub fn open_in(ns: &str, name: &str) -> io::Result<Tun> {
        let own = File::open("/proc/thread-self/ns/net")?;
        let target = File::open(ns)?;
        setns(&target)?;
        let t = Tun::open(name);
        setns(&own)?;
        t
    }

    fn open(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "interface name of 1 to 15 bytes"));
        }
        let path = c"/dev/net/tun";
        let fd = cvt(unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) })?;
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) })?;
        Ok(Tun { fd, name: name.to_string() })
    }

    /// One packet, if one is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
        }
        Ok(Some(n as usize))
    }

    pub fn write(&self, pkt: &[u8]) -> io::Result<()> {
        let n = unsafe { libc::write(self.fd.as_raw_fd(), pkt.as_ptr() as *const libc::c_void, pkt.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            // A full device queue drops the packet as a full NIC would.
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(()) } else { Err(e) };
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> libc::c_int {
        self.fd.as_raw_fd()
    }
}
