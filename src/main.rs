use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, except that running out of memory ends the run with a message and
/// exit code 3 instead of an abort (exit 134): the outputs are written all at once or not at
/// all, so nothing is lost but the run itself.
struct ExitOnOom;

// SAFETY: every call is forwarded to the system allocator unchanged; only a failed
// allocation is turned into an exit instead of a null pointer.
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        or_exit(unsafe { System.alloc(layout) }, layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        or_exit(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's pointer, layout and size.
        or_exit(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// The allocation `p` of `size` bytes, or the end of the run if it failed.
fn or_exit(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        out_of_memory(size);
    }
    p
}

#[global_allocator]
static ALLOCATOR: ExitOnOom = ExitOnOom;

/// Prints the error without allocating and exits with code 3 at once.
fn out_of_memory(size: usize) -> ! {
    let mut msg = [0u8; 320];
    let mut n = 0;
    let mut put = |b: &[u8]| {
        let k = b.len().min(msg.len() - n);
        msg[n..n + k].copy_from_slice(&b[..k]);
        n += k;
    };
    put(b"error: out of memory: an allocation of ");
    // itoa formats into a buffer on the stack: no allocation.
    put(itoa::Buffer::new().format(size).as_bytes());
    put(
        b" bytes failed (the machine's memory, the cgroup's limit or ulimit -v); nothing was \
          written: use a machine with more memory, or replay the history in parts \
          (--save-state, then --resume)\n",
    );
    // SAFETY: writes a valid buffer to stderr, then ends the process without unwinding or
    // running anything that could allocate.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), n);
        libc::_exit(3);
    }
}
use rate_batch::cli::{Cli, run};
use rate_batch::jobs::exit_code;

fn main() {
    // A panic is a bug, but it must end the process: printed as usual, then exit 101 at once,
    // so that no thread left waiting (the history writer, rayon's pool) can keep it alive.
    // Temporary output files it leaves are removed by the next run; outputs are untouched.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    let matches = rate_batch::cli::command_with_defaults().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let json = cli.log_json();
    rate_batch::jobs::process_ends_after_job();
    if let Err(e) = run(cli, &mut out) {
        let code = exit_code(&e);
        if json {
            let doc = serde_json::json!({
                "status": "error",
                "exit_code": code,
                "error": format!("{e:#}"),
            });
            eprintln!("{doc}");
        } else {
            // One line: the cause chain joined, outermost first.
            eprintln!("error: {e:#}");
        }
        std::process::exit(code);
    }
}
