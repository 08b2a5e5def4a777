//! Issue 18, "accepted silently": every number read from a data file is
//! checked where it is parsed, and a bad one is refused naming its field.
//! Each case here was accepted before (or panicked or hung later on).

use spotter::calibration::{Lens, TableLayout};
use spotter::game::Scenario;
use spotter::rules::stand_to::StandTo;
use spotter::rules::stand_to::data::BUILTIN_TOML;
use spotter::spec::{SourceFile, SpecError};

use crate::common::registry;

/// The built-in Stand To! data with one `key = value` line of `table`
/// replaced.
fn stand_to_with(table: &str, key: &str, value: &str) -> Result<StandTo, SpecError> {
    let mut out = String::new();
    let mut in_table = false;
    let mut done = false;
    for line in BUILTIN_TOML.lines() {
        let t = line.trim_start();
        if t.starts_with('[') {
            in_table = t == format!("[{table}]") || t == format!("[[{table}]]");
        }
        if in_table && !done && t.starts_with(&format!("{key} =")) {
            out.push_str(&format!("{key} = {value}\n"));
            done = true;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(done, "no {key} in [{table}]");
    StandTo::from_source(&SourceFile::from_text("stand-to.toml", out))
}

fn names_field(err: &SpecError, field: &str) -> bool {
    err.problems.iter().any(|p| p.field == field)
}

#[test]
fn rule_data_dice_counts_must_be_the_ones_the_arithmetic_reads() {
    // 0 panicked in fire and melee resolution; 3, 20, 1000 rolled that many
    // dice while the odds and the totals read 2.
    for (table, key, field) in [
        ("fire", "dice_white", "fire.dice_white"),
        ("fire", "dice_coloured", "fire.dice_coloured"),
        ("melee", "dice", "melee.dice"),
    ] {
        for n in ["0", "3", "20", "1000"] {
            let err = stand_to_with(table, key, n).unwrap_err();
            assert!(names_field(&err, field), "{table}.{key} = {n}: {err}");
        }
    }
    assert!(stand_to_with("fire", "dice_white", "2").is_ok());
}

#[test]
fn rule_data_lengths_and_speeds_are_checked() {
    let err = stand_to_with("melee", "engagement_in", "-1.0").unwrap_err();
    assert!(names_field(&err, "melee.engagement_in"), "{err}");
    let err = stand_to_with("melee", "engagement_in", "nan").unwrap_err();
    assert!(names_field(&err, "melee.engagement_in"), "{err}");
    // The first mount speed (walk, 0 to 3 in) given a minimum above its maximum.
    let err = stand_to_with("mount.speed", "min_in", "5.0").unwrap_err();
    assert!(names_field(&err, "mount.speed[0].min_in"), "{err}");
}

const SCENARIO_HEAD: &str = r#"name = "t"
rule_set = "stand-to"
"#;

const SIDES: &str = r#"
[[side]]
name = "British"
kind = "european"

[[side]]
name = "Natives"
kind = "native"
"#;

fn figure(facing: &str) -> String {
    format!(
        r#"
[[figure]]
name = "Tommy"
rank = "private"
side = "British"
weapon = "revolver"
melee_weapon = "sword-sabre"
experience = 3
x_in = 10.0
y_in = 10.0
facing_deg = {facing}
base = "foot"
"#
    )
}

fn scenario(text: &str) -> Result<Scenario, String> {
    Scenario::from_source(&SourceFile::from_text("s.toml", text), &registry())
        .map_err(|e| e.to_string())
}

#[test]
fn scenario_numbers_are_checked_where_parsed() {
    let table = "[table]\nwidth_in = 48.0\ndepth_in = 48.0\n";
    for facing in ["nan", "inf", "1e308"] {
        let err =
            scenario(&format!("{SCENARIO_HEAD}{table}{SIDES}{}", figure(facing))).unwrap_err();
        assert!(err.contains("figure[0].facing_deg"), "{facing}: {err}");
    }
    for sigma in ["-1.0", "nan"] {
        let text = format!(
            "{SCENARIO_HEAD}position_sigma_in = {sigma}\n{table}{SIDES}{}",
            figure("0.0")
        );
        let err = scenario(&text).unwrap_err();
        assert!(err.contains("position_sigma_in"), "{sigma}: {err}");
    }
    let inf_table = "[table]\nwidth_in = inf\ndepth_in = 48.0\n";
    let err = scenario(&format!(
        "{SCENARIO_HEAD}{inf_table}{SIDES}{}",
        figure("0.0")
    ))
    .unwrap_err();
    assert!(err.contains("table.width_in"), "{err}");
    assert!(scenario(&format!("{SCENARIO_HEAD}{table}{SIDES}{}", figure("90.0"))).is_ok());
}

#[test]
fn a_volley_fire_unit_with_nan_facing_names_facing_deg_once() {
    let text = std::fs::read_to_string("scenarios/vf-sudan-patrol.toml").unwrap();
    let bad = text.replacen("facing_deg = 90.0", "facing_deg = nan", 1);
    assert_ne!(bad, text);
    let err = Scenario::from_source(&SourceFile::from_text("vf.toml", bad), &registry())
        .unwrap_err()
        .to_string();
    assert_eq!(err.matches("facing_deg").count(), 1, "{err}");
    assert!(!err.contains("off the table"), "{err}");
}

#[test]
fn a_unit_of_a_billion_figures_is_refused_not_generated() {
    let text = std::fs::read_to_string("scenarios/vf-sudan-patrol.toml").unwrap();
    let bad = text.replacen("count = 24", "count = 4000000000", 1);
    assert_ne!(bad, text);
    let err = Scenario::from_source(&SourceFile::from_text("vf.toml", bad), &registry())
        .unwrap_err()
        .to_string();
    assert!(err.contains("count"), "{err}");
}

const LAYOUT: &str = "[table]\nwidth_in = 48.0\ndepth_in = 48.0\n";

fn marker(id: u32, x: f64, y: f64, rot: &str) -> String {
    format!(
        "\n[[marker]]\nid = {id}\ncenter_in = [{x:?}, {y:?}]\nsize_in = 3.0\nrotation_deg = {rot}\n"
    )
}

fn layout(markers: &[(u32, f64, f64)], rot0: &str) -> Result<TableLayout, SpecError> {
    let mut text = LAYOUT.to_owned();
    for (i, &(id, x, y)) in markers.iter().enumerate() {
        text.push_str(&marker(id, x, y, if i == 0 { rot0 } else { "0.0" }));
    }
    TableLayout::from_source(&SourceFile::from_text("t.toml", text))
}

const CORNERS: [(u32, f64, f64); 4] = [
    (0, 2.0, 2.0),
    (1, 46.0, 2.0),
    (2, 46.0, 46.0),
    (3, 2.0, 46.0),
];

#[test]
fn layout_rotation_nan_is_refused_not_a_hang() {
    for rot in ["nan", "inf", "1e300"] {
        let err = layout(&CORNERS, rot).unwrap_err();
        assert!(names_field(&err, "marker[0].rotation_deg"), "{rot}: {err}");
    }
    assert!(layout(&CORNERS, "90.0").is_ok());
}

#[test]
fn overlapping_identical_collinear_and_swapped_markers_are_refused() {
    let identical = [CORNERS[0], (1, 2.0, 2.0), CORNERS[2], CORNERS[3]];
    let err = layout(&identical, "0.0").unwrap_err();
    assert!(err.to_string().contains("overlaps"), "{err}");
    let overlapping = [CORNERS[0], (1, 3.0, 3.0), CORNERS[2], CORNERS[3]];
    assert!(layout(&overlapping, "0.0").is_err());
    let collinear = [
        (0, 2.0, 2.0),
        (1, 14.0, 14.0),
        (2, 30.0, 30.0),
        (3, 46.0, 46.0),
    ];
    let err = layout(&collinear, "0.0").unwrap_err();
    assert!(err.to_string().contains("one line"), "{err}");
    let swapped = [(1, 2.0, 2.0), (0, 46.0, 2.0), CORNERS[2], CORNERS[3]];
    let err = layout(&swapped, "0.0").unwrap_err();
    assert!(err.to_string().contains("swapped"), "{err}");
}

fn camera(dist: &str, size: &str) -> Result<Lens, SpecError> {
    let text = format!(
        "[lens]\nK = [1000.0, 0.0, 640.0, 0.0, 1000.0, 360.0, 0.0, 0.0, 1.0]\ndist = {dist}\nimage_size = {size}\n"
    );
    Lens::from_source(&SourceFile::from_text("c.toml", text))
}

#[test]
fn camera_file_distortion_and_size_are_bounded() {
    let err = camera("[1e10, 0.0, 0.0, 0.0, 0.0]", "[1280, 720]").unwrap_err();
    assert!(names_field(&err, "lens.dist"), "{err}");
    let err = camera("[0.0, 0.0, 0.0, 0.0, 0.0]", "[4000000000, 4000000000]").unwrap_err();
    assert!(names_field(&err, "lens.image_size"), "{err}");
    assert!(camera("[-0.2, 0.02, 0.0, 0.0, 0.0]", "[1280, 720]").is_ok());
}

#[test]
fn a_camera_file_for_another_image_shape_is_refused_naming_both_sizes() {
    let lens = camera("[0.0, 0.0, 0.0, 0.0, 0.0]", "[640, 480]").unwrap();
    let err = lens.for_image([1920, 1080]).unwrap_err().to_string();
    assert!(
        err.contains("640x480") && err.contains("1920x1080"),
        "{err}"
    );
    // The same shape at another resolution is the same sensor, scaled.
    let scaled = lens.for_image([1280, 960]).unwrap();
    assert!((scaled.fx() - 2000.0).abs() < 1e-9);
}

#[test]
fn type_errors_name_the_field_not_the_value() {
    let text = format!(
        "{SCENARIO_HEAD}[table]\nwidth_in = 48.0\ndepth_in = 48.0\n{SIDES}{}",
        figure("0.0").replace("experience = 3", "experience = 300")
    );
    let err = scenario(&text).unwrap_err();
    assert!(err.contains("field `experience`"), "{err}");
    assert!(!err.contains("field `300`"), "{err}");
}

/// A file of `bytes` zero bytes that takes no room on disk.
fn sparse(path: &std::path::Path, bytes: u64) {
    let f = std::fs::File::create(path).expect("create");
    f.set_len(bytes).expect("set_len");
}

#[test]
fn a_bindings_file_too_large_is_refused_naming_it_and_the_cap_and_kept() {
    let games = tempfile::tempdir().expect("temp dir");
    let scenario =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo-stand-to.toml");
    let session =
        spotter::ui::session::GameSession::new_game(&scenario, games.path(), 7).expect("game");
    let log = session.log_path.clone();
    let path = spotter::ui::session::bindings_path(&log);
    let size = spotter::spec::MAX_DATA_FILE_BYTES + 1;
    sparse(&path, size);
    let err = spotter::ui::session::load_bindings(&log).expect_err("a 4 MiB bindings file");
    let text = format!("{err:#}");
    assert!(
        text.contains(&path.display().to_string()),
        "the file is named: {text}"
    );
    assert!(
        text.contains(&format!(
            "larger than {} bytes",
            spotter::spec::MAX_DATA_FILE_BYTES
        )),
        "the cap is named: {text}"
    );
    // Nothing lost: the file is left as it was, and the game resumes.
    assert_eq!(std::fs::metadata(&path).expect("kept").len(), size);
    let before = session.state().clone();
    drop(session);
    let again = spotter::ui::session::GameSession::resume(&log, 7).expect("resumes");
    assert_eq!(again.state(), &before);
}

#[test]
fn a_recorded_photo_too_large_is_refused_naming_it_and_the_cap_and_the_rest_still_play() {
    use spotter::capture::folder::{FolderSource, Playback};
    use spotter::capture::{CaptureError, FrameSource};
    let dir = tempfile::tempdir().expect("temp dir");
    let good = image::RgbImage::from_pixel(8, 4, image::Rgb([200, 0, 0]));
    good.save(dir.path().join("frame-00.png")).expect("save");
    let size = spotter::spec::MAX_PHOTO_BYTES + 1;
    for big in ["frame-01.jpg", "frame-02.png"] {
        sparse(&dir.path().join(big), size);
    }
    let playback = Playback {
        fps: 30.0,
        hold: std::time::Duration::from_secs(3600),
        looped: true,
    };
    let mut src = FolderSource::open(dir.path(), playback).expect("the folder");
    let (first, _) = src.next_frame().expect("the good photo");
    assert_eq!(first, good);
    for (step, big) in [(1, "frame-01.jpg"), (1, "frame-02.png")] {
        src.step(step);
        match src.next_frame() {
            Err(CaptureError::Read { path, reason }) => {
                assert!(path.ends_with(big), "{path}");
                assert!(
                    reason.contains(&format!(
                        "larger than {} bytes",
                        spotter::spec::MAX_PHOTO_BYTES
                    )),
                    "{big}: {reason}"
                );
            }
            other => panic!("{big}: {other:?}"),
        }
        assert_eq!(
            std::fs::metadata(dir.path().join(big)).expect("kept").len(),
            size
        );
    }
    // The good photo still plays.
    src.step(1);
    assert_eq!(src.next_frame().expect("the good photo again").0, good);
}
