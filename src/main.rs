//! The `spotter` binary: a thin shell over [`spotter::cli`].

fn main() -> std::process::ExitCode {
    spotter::cli::main()
}
