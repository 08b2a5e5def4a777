//! Issue 18 from the command line: flags and files that panicked, hung or
//! were accepted silently. Each run is a child process with a time bound:
//! a run that does not end within it is a hang (the bound is generous; no
//! speed is asserted).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far more than any of these runs needs on a loaded machine.
const HANG_BOUND: Duration = Duration::from_secs(180);

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// The program under test: this build's, or the one `SPOTTER_BIN` names
/// (to run these cases against another build, such as the code before a
/// fix).
fn binary() -> std::ffi::OsString {
    std::env::var_os("SPOTTER_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_spotter").into())
}

/// Runs `spotter args`, killing it (and failing the test) if it outlives
/// [`HANG_BOUND`].
fn spotter(args: &[&str]) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > HANG_BOUND {
            child.kill().unwrap();
            let _ = child.wait();
            panic!(
                "`spotter {}` hung (killed after {HANG_BOUND:?})",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let run = Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "`spotter {}` panicked: {}",
        args.join(" "),
        run.stderr
    );
    run
}

/// Refused with an error that contains `needle`.
fn refused(args: &[&str], needle: &str) {
    let r = spotter(args);
    assert!(
        !r.ok,
        "`spotter {}` was accepted: {}",
        args.join(" "),
        r.stdout
    );
    assert!(
        r.stderr.contains(needle),
        "`spotter {}`: {}",
        args.join(" "),
        r.stderr
    );
}

#[test]
fn app_bench_seconds_that_are_not_a_duration_are_refused() {
    for bad in ["nan", "inf", "1e20", "-1", "0"] {
        refused(&["app", "--demo", &format!("--bench={bad}")], "--bench");
    }
}

#[test]
fn app_fps_zero_is_refused_not_a_hang() {
    refused(&["app", "--demo", "--bench", "2", "--fps", "0"], "--fps");
    refused(&["app", "--demo", "--bench", "2", "--fps", "nan"], "--fps");
    refused(&["app", "--demo", "--bench", "2", "--fps", "1000"], "--fps");
    refused(&["app", "--demo", "--bench", "2", "--fps", "0.01"], "--fps");
    refused(
        &["app", "--demo", "--bench", "2", "--mode", "1920x1080@0"],
        "--mode",
    );
}

#[test]
fn odds_counts_are_bounded_with_a_clear_error() {
    refused(
        &[
            "odds",
            "volley-fire",
            "fire",
            "--weapon",
            "sudanese-rifles",
            "--range-in",
            "10",
            "--firers",
            "1000000",
        ],
        "--firers",
    );
    refused(
        &[
            "odds",
            "little-colonial",
            "fire",
            "--weapon",
            "mauser",
            "--range-cm",
            "10",
            "--soldiers",
            "100000",
        ],
        "--soldiers",
    );
    refused(
        &[
            "odds",
            "little-colonial",
            "draw",
            "--cards-left",
            "1000000000000",
        ],
        "--cards-left",
    );
}

#[test]
fn odds_ranges_and_sigma_must_be_finite_and_not_negative() {
    let fire = |flag: &str, value: &str| {
        let mut args = vec![
            "odds",
            "stand-to",
            "fire",
            "--weapon",
            "revolver",
            "--range-in",
            "5",
        ];
        if flag == "--range-in" {
            args.truncate(5);
        }
        let arg = format!("{flag}={value}");
        args.push(&arg);
        refused(&args, flag);
    };
    fire("--range-in", "-5");
    fire("--range-in", "nan");
    fire("--sigma-in", "nan");
    fire("--sigma-in", "-1");
}

#[test]
fn extreme_melee_modifiers_are_refused_not_wrapped() {
    let (max, min) = ("2147483647", "-2147483648");
    refused(
        &[
            "odds",
            "stand-to",
            "melee",
            "--attacker-mod",
            max,
            &format!("--defender-mod={min}"),
        ],
        "--attacker-mod",
    );
    refused(
        &["odds", "volley-fire", "melee", "--attacker-add", max],
        "--attacker-add",
    );
    refused(
        &[
            "odds",
            "soldiers-in-time",
            "melee",
            "--a-total",
            max,
            &format!("--b-total={min}"),
        ],
        "--a-total",
    );
    refused(
        &["odds", "little-colonial", "combat", "--a-add", max],
        "--a-add",
    );
}

const PHOTO: &str = "fixtures/photoreal/cam01/frame-01.jpg";

#[test]
fn a_layout_with_nan_rotation_is_refused_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("table.toml");
    let text = std::fs::read_to_string("calibration/table.toml")
        .unwrap()
        .replacen("rotation_deg = 0.0", "rotation_deg = nan", 1);
    std::fs::write(&layout, text).unwrap();
    let l = layout.to_str().unwrap();
    refused(&["table", PHOTO, "--layout", l], "rotation_deg");
    refused(&["detect", PHOTO, "--layout", l], "rotation_deg");
}

#[test]
fn a_camera_file_with_huge_numbers_is_refused_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("fixtures/detect/cam01.camera.toml").unwrap();
    let dist_line = good.lines().find(|l| l.starts_with("dist")).unwrap();
    let size_line = good.lines().find(|l| l.starts_with("image_size")).unwrap();
    for (what, bad) in [
        (
            "lens.dist",
            good.replace(dist_line, "dist = [1e10, 0.0, 0.0, 0.0, 0.0]"),
        ),
        (
            "lens.image_size",
            good.replace(size_line, "image_size = [4000000000, 4000000000]"),
        ),
    ] {
        let camera = dir.path().join("camera.toml");
        std::fs::write(&camera, bad).unwrap();
        let c = camera.to_str().unwrap();
        refused(&["table", PHOTO, "--camera", c], what);
        refused(&["detect", PHOTO, "--camera", c], what);
    }
}

#[test]
fn a_camera_file_for_another_image_size_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("fixtures/detect/cam01.camera.toml").unwrap();
    let size_line = good.lines().find(|l| l.starts_with("image_size")).unwrap();
    let camera = dir.path().join("camera.toml");
    std::fs::write(&camera, good.replace(size_line, "image_size = [640, 480]")).unwrap();
    let c = camera.to_str().unwrap();
    for args in [
        vec!["detect", PHOTO, "--camera", c, "--json"],
        vec!["table", PHOTO, "--camera", c],
        vec!["track", PHOTO, "--camera", c, "--json"],
        vec!["bench", PHOTO, "--camera", c, "--runs", "1"],
    ] {
        let r = spotter(&args);
        assert!(!r.ok, "{args:?}: {}", r.stdout);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("640x480") && all.contains("1920x1080"),
            "{args:?}: {all}"
        );
    }
    // The app's marker search, on a frame of the photo's size.
    let lens = spotter::calibration::Lens::load(&camera).unwrap();
    let layout =
        spotter::calibration::TableLayout::load(Path::new("calibration/table.toml")).unwrap();
    let mut finder = spotter::ui::perceive::ArucoMarkers {
        layout,
        lens: Some(lens),
    };
    let frame = image::GrayImage::new(1920, 1080);
    let err = spotter::ui::perceive::MarkerFinder::find(&mut finder, &frame).unwrap_err();
    assert!(
        err.contains("640x480") && err.contains("1920x1080"),
        "{err}"
    );
}

#[test]
fn a_truncated_jpeg_says_truncated_and_a_tiny_image_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(PHOTO).unwrap();
    let cut = dir.path().join("cut.jpg");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let r = spotter(&["table", cut.to_str().unwrap()]);
    assert!(!r.ok);
    assert!(r.stderr.contains("truncated"), "{}", r.stderr);
    let tiny = dir.path().join("tiny.png");
    image::RgbImage::new(1, 1).save(&tiny).unwrap();
    for cmd in ["table", "detect"] {
        let r = spotter(&[cmd, tiny.to_str().unwrap()]);
        assert!(!r.ok);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(all.contains("too small"), "{cmd}: {all}");
        assert!(!all.contains("OpenCV"), "{cmd}: {all}");
    }
}

#[test]
fn a_photo_or_record_too_large_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jpg");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(spotter::spec::MAX_PHOTO_BYTES + 1).unwrap();
    refused(&["table", big.to_str().unwrap()], "larger than");
    let record = dir.path().join("big.jsonl");
    let f = std::fs::File::create(&record).unwrap();
    f.set_len(spotter::spec::MAX_PHOTO_BYTES + 1).unwrap();
    refused(&["track", record.to_str().unwrap()], "larger than");
}

/// `app --bench` headless with a fresh games folder, plus `extra` flags.
fn app_headless(games: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "app",
        "--bench",
        "1",
        "--games-dir",
        games.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    spotter(&args)
}

#[test]
fn app_headless_refuses_what_it_cannot_use_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let r = app_headless(
        &games,
        &[
            "--demo",
            "--new-game",
            "--scenario",
            "no/such/scenario.toml",
        ],
    );
    assert!(
        !r.ok && r.stderr.contains("no/such/scenario.toml"),
        "{}",
        r.stderr
    );
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "name = [\n").unwrap();
    let r = app_headless(
        &games,
        &[
            "--demo",
            "--new-game",
            "--scenario",
            broken.to_str().unwrap(),
        ],
    );
    assert!(!r.ok && r.stderr.contains("broken.toml"), "{}", r.stderr);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let r = app_headless(&file, &["--demo", "--new-game"]);
    assert!(!r.ok && r.stderr.contains("is a file"), "{}", r.stderr);
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let r = app_headless(&games, &["--source", empty.to_str().unwrap()]);
    assert!(!r.ok && r.stderr.contains("holds no"), "{}", r.stderr);
    let fake = dir.path().join("fake.mp4");
    std::fs::write(&fake, "this is not a video").unwrap();
    let r = app_headless(&games, &["--source", fake.to_str().unwrap()]);
    assert!(!r.ok && r.stderr.contains("fake.mp4"), "{}", r.stderr);
    let r = app_headless(&games, &["--demo", "--new-game", "--select", "Nobody"]);
    assert!(!r.ok && r.stderr.contains("Nobody"), "{}", r.stderr);
}

#[test]
fn app_says_whether_it_resumed_and_refuses_corrupt_bindings() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let session = spotter::ui::session::GameSession::new_game(
        Path::new(spotter::ui::session::DEFAULT_SCENARIO),
        &games,
        1,
    )
    .unwrap();
    let log = session.log_path.clone();
    drop(session);
    let r = app_headless(&games, &["--demo"]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stdout
            .contains(&format!("resumed the game from {}", log.display())),
        "{}",
        r.stdout
    );
    std::fs::write(spotter::ui::session::bindings_path(&log), "{not json").unwrap();
    let r = app_headless(&games, &["--demo"]);
    assert!(!r.ok && r.stderr.contains("bindings"), "{}", r.stderr);
}

#[test]
fn a_refusal_is_printed_once_with_what_to_do() {
    let out = std::process::Command::new(binary())
        .args([
            "resolve",
            "--scenario",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scenarios/demo-soldiers-in-time.toml"
            ),
            "--rule-action",
            "fire",
            "--action-params",
            r#"{"shooter": "Captain Morgan", "target": "Pte Abbott"}"#,
            "--phase",
            "shooting",
        ])
        .output()
        .expect("spotter runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    let why = err
        .split("not allowed: ")
        .nth(1)
        .unwrap_or_else(|| panic!("a refusal: {err}"))
        .trim();
    assert!(!why.is_empty(), "{err}");
    assert_eq!(err.matches(why).count(), 1, "said once: {err}");
}

/// `resolve --log` on an existing game resumes it and appends the action
/// (its help says it appends); a log of another scenario is refused and
/// left as it was.
#[test]
fn resolve_log_on_an_existing_game_appends_the_action() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("dragoon.jsonl");
    let log_arg = log.to_str().unwrap();
    let dragoon = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/dragoon.toml");
    let fire = |dice: &str| {
        spotter(&[
            "resolve",
            "--scenario",
            dragoon,
            "--actor",
            "Trooper Hobbs",
            "--action",
            "fire",
            "--target",
            "Hadendowa warrior",
            "--dice",
            dice,
            "--log",
            log_arg,
        ])
    };
    let first = fire("1,1,1");
    assert!(first.ok, "{}", first.stderr);
    // The second shot is taken in the logged game, where he has fired.
    let again = fire("1,2,1");
    assert!(
        !again.ok && again.stderr.contains("no more shots"),
        "{}",
        again.stderr
    );
    let end = spotter(&[
        "resolve",
        "--scenario",
        dragoon,
        "--rule-action",
        "end-phase",
        "--log",
        log_arg,
    ]);
    assert!(end.ok, "{}", end.stderr);
    let registry = spotter::rules::Registry::builtin().unwrap();
    let played = |log: &Path| {
        spotter::game::Game::resume(log, &registry)
            .unwrap()
            .history()
            .len()
    };
    assert_eq!(played(&log), 2, "both actions are in the log");
    let before = std::fs::read(&log).unwrap();
    let other = spotter(&[
        "resolve",
        "--scenario",
        concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lcr-baler.toml"),
        "--rule-action",
        "draw",
        "--action-params",
        r#"{"then": "fire"}"#,
        "--log",
        log_arg,
    ]);
    assert!(!other.ok, "another scenario's log was accepted");
    assert!(
        other.stderr.contains("The dragoon's shot") && other.stderr.contains("--log"),
        "{}",
        other.stderr
    );
    assert_eq!(std::fs::read(&log).unwrap(), before, "the log is untouched");
}
