//! The `spotter` binary: a thin shell over [`spotter::cli`].

fn main() -> std::process::ExitCode {
    restore_sigpipe();
    spotter::cli::main()
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`spotter odds ... |
/// head`) panics. A command-line tool should end quietly instead, as the
/// shell's own tools do.
#[cfg(unix)]
#[allow(unsafe_code, reason = "one libc call; the crate has no other unsafe")]
fn restore_sigpipe() {
    // SAFETY: called once at start-up, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}
