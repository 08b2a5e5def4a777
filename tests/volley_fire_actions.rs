//! Volley Fire!: phase checks (an action only in its phase of the turn),
//! formation changes, double time and the square's limits, on the Sudan
//! patrol scenario.

use crate::common::refusal_kind;
use crate::common::volley_fire::{action, apply, at, setup};
use nalgebra::{Point2, Vector2};
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState};
use spotter::rules::dice::TypedDice;
use spotter::rules::{RuleError, RuleSet};

fn run(
    rules: &dyn RuleSet,
    s: &GameState,
    cmd: &Command,
    faces: &[u32],
) -> Result<Vec<Event>, RuleError> {
    rules.resolve(s, cmd, &mut TypedDice::new(faces.iter().copied()))
}

#[test]
fn actions_run_only_in_their_phase_and_moves_in_their_sides_turn() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Hadendowa"}),
    );
    let err = r.check(&s, &fire).unwrap_err().to_string();
    assert!(err.contains("belongs to the fire phase"), "{err}");
    let mv = |unit: &str| {
        action(
            "move",
            serde_json::json!({"unit": unit, "to_in": [36.0, 12.0]}),
        )
    };
    assert!(
        r.check(&s, &mv("1st Section")).is_ok(),
        "a double-rank line moves"
    );
    let err = r.check(&s, &mv("Hadendowa")).unwrap_err().to_string();
    assert!(err.contains("own side's turn"), "{err}");
    // The fire phase: both sides fire (simultaneous fire), nobody moves.
    at(&mut s, 1, "Sudanese");
    assert!(r.check(&s, &fire).is_ok());
    let dervish_fire = action(
        "fire",
        serde_json::json!({"unit": "Riflemen", "target": "1st Section"}),
    );
    assert!(r.check(&s, &dervish_fire).is_ok());
    assert_eq!(
        refusal_kind(r.check(&s, &mv("1st Section"))),
        RefusalKind::WrongPhase
    );
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    assert!(
        r.check(&s, &melee)
            .unwrap_err()
            .to_string()
            .contains("melee phase")
    );
}

fn front_centre(s: &GameState, unit: &str) -> Point2<f64> {
    let (_, u) = s.unit_named(unit).unwrap();
    let per = if u.frontage == 0 {
        u.figures.len()
    } else {
        u.frontage as usize
    };
    let front: Vec<Point2<f64>> = u
        .figures
        .iter()
        .take(per)
        .map(|id| s.figure(*id).unwrap().placement.center_in_table)
        .collect();
    let sum = front.iter().fold(Vector2::zeros(), |a, p| a + p.coords);
    Point2::from(sum / front.len() as f64)
}

#[test]
fn a_formation_change_moves_half_the_present_move_and_lays_out_the_new_one() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let before = front_centre(&s, "1st Section");
    // Double-rank line: 3 d6 (6+6+6 = 18), half is 9 in; asked to go 20 in.
    let form = action(
        "form",
        serde_json::json!({"unit": "1st Section", "formation": "column", "facing_deg": 0.0, "to_in": [before.x + 20.0, before.y]}),
    );
    let ev = run(r.as_ref(), &s, &form, &[6, 6, 6]).unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Formed { formation, frontage: 4, .. } if formation == "column"
    )));
    let s2 = apply(&s, &ev);
    let (_, u) = s2.unit_named("1st Section").unwrap();
    assert_eq!(u.formation, "column");
    let after = front_centre(&s2, "1st Section");
    assert!(
        (after - before - Vector2::new(9.0, 0.0)).norm() < 1e-6,
        "{after}"
    );
    // Four files facing +x, 1 in apart, ranks 1 in behind each other.
    let p = |k: usize| s2.figure(u.figures[k]).unwrap().placement.center_in_table;
    assert!(((p(1) - p(0)).norm() - 1.0).abs() < 1e-6);
    assert!((p(4) - p(0) - Vector2::new(-1.0, 0.0)).norm() < 1e-6);
    assert!(
        u.figures
            .iter()
            .all(|id| s2.figure(*id).unwrap().placement.facing_deg.abs() < 1e-9)
    );
    // Half of 1+1+1 = 3 is 2 (rounded up).
    let ev = run(r.as_ref(), &s, &form, &[1, 1, 1]).unwrap();
    let moved = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(r) => Some(r.value),
            _ => None,
        })
        .unwrap();
    assert!((moved - 2.0).abs() < 1e-9);
}

#[test]
fn a_square_is_hollow_with_equal_sides_facing_out() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let form = action(
        "form",
        serde_json::json!({"unit": "1st Section", "formation": "square"}),
    );
    let s2 = apply(&s, &run(r.as_ref(), &s, &form, &[1, 1, 1]).unwrap());
    let (_, u) = s2.unit_named("1st Section").unwrap();
    let pts: Vec<(Point2<f64>, f64)> = u
        .figures
        .iter()
        .map(|id| {
            let f = s2.figure(*id).unwrap();
            (f.placement.center_in_table, f.placement.facing_deg)
        })
        .collect();
    let c =
        Point2::from(pts.iter().fold(Vector2::zeros(), |a, p| a + p.0.coords) / pts.len() as f64);
    let mut facings: Vec<i64> = pts.iter().map(|p| p.1.round() as i64).collect();
    facings.sort_unstable();
    facings.dedup();
    assert_eq!(facings.len(), 4, "four sides");
    for (p, f) in &pts {
        let out = Vector2::new(f.to_radians().cos(), f.to_radians().sin());
        assert!((p - c).dot(&out) > 0.0, "every man faces out");
    }
    // 25 men: sides of 7, 7, 7 and 4.
    assert_eq!(u.frontage, 7);
    // A square cannot initiate a melee.
    let mut s3 = s2.clone();
    at(&mut s3, 2, "Sudanese");
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "1st Section", "defender": "Hadendowa"}),
    );
    assert!(
        r.check(&s3, &melee)
            .unwrap_err()
            .to_string()
            .contains("square cannot initiate")
    );
}

#[test]
fn dervish_masses_never_change_formation() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Dervishes");
    let form = action(
        "form",
        serde_json::json!({"unit": "Hadendowa", "formation": "line"}),
    );
    let err = r.check(&s, &form).unwrap_err().to_string();
    assert!(err.contains("cannot form line"), "{err}");
}

#[test]
fn double_time_adds_two_dice_and_heat_stroke_takes_the_low_die() {
    let (mut s, r) = setup();
    at(&mut s, 0, "Sudanese");
    let before = front_centre(&s, "1st Section");
    let mv = action(
        "move",
        serde_json::json!({"unit": "1st Section", "to_in": [before.x, before.y + 30.0], "double_time": true}),
    );
    // 3 d6 = 9, double time 2 + 5 = 7: 16 in; the low die, 2, is down.
    let ev = run(r.as_ref(), &s, &mv, &[3, 3, 3, 2, 5]).unwrap();
    let down = ev
        .iter()
        .filter(|e| matches!(e, Event::Wounded { .. }))
        .count();
    assert_eq!(down, 2);
    let moved = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(r) => Some(r.value),
            _ => None,
        })
        .unwrap();
    assert!((moved - 16.0).abs() < 1e-9, "{moved}");
    // Doubles: no heat stroke.
    let ev = run(r.as_ref(), &s, &mv, &[3, 3, 3, 4, 4]).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::Wounded { .. })));
    // Scouts cannot double time.
    let scouts = action(
        "move",
        serde_json::json!({"unit": "Scouts", "to_in": [60.0, 30.0], "double_time": true}),
    );
    assert_eq!(refusal_kind(r.check(&s, &scouts)), RefusalKind::CannotDo);
}

#[test]
fn a_commander_in_the_zone_of_fire_rolls_a_d20_20_killed_19_wounded() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    let emir = s.figure_named("Emir").unwrap().id;
    s.figures[emir.index()].rules.volley_fire_mut().commander = true;
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Hadendowa"}),
    );
    // Every firing die a 20 (no hits), then the commander's die.
    let wound_of = |faces: &[u32]| {
        run(r.as_ref(), &s, &fire, faces)
            .unwrap()
            .iter()
            .find_map(|e| match e {
                Event::Wounded { figure, wound, .. } if *figure == emir => Some(*wound),
                _ => None,
            })
    };
    let groups = run(r.as_ref(), &s, &fire, &[20; 12])
        .unwrap()
        .iter()
        .filter(|e| matches!(e, Event::Rolled { purpose, .. } if purpose == "fire"))
        .count();
    let mut faces = vec![20; groups];
    faces.push(20);
    assert_eq!(
        wound_of(&faces),
        Some(spotter::rules::stand_to::Wound::Killed)
    );
    *faces.last_mut().unwrap() = 19;
    assert_eq!(
        wound_of(&faces),
        Some(spotter::rules::stand_to::Wound::Light)
    );
    *faces.last_mut().unwrap() = 18;
    assert_eq!(wound_of(&faces), None);
}

#[test]
fn scouts_fire_a_d6_each_4_up_in_the_open_5_up_in_cover() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    // The three scouts at (59..61, 20) facing +y; the swordsmen 1.5 in ahead.
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Scouts", "target": "Swordsmen"}),
    );
    let odds = r.odds(&s, &fire).unwrap();
    let p = |n: &str| odds.iter().find(|o| o.name == n).unwrap().p;
    approx::assert_relative_eq!(p("p_any_hit"), 1.0 - 0.125, epsilon = 1e-12);
    approx::assert_relative_eq!(p("p_all_hit"), 0.125, epsilon = 1e-12);
    // Three d6, then the d20 for a leader among the casualties.
    let ev = run(r.as_ref(), &s, &fire, &[4, 3, 6, 1]).unwrap();
    let down = ev
        .iter()
        .filter(|e| matches!(e, Event::Wounded { .. }))
        .count();
    assert_eq!(down, 2);
    let (ui, _) = s.unit_named("Swordsmen").unwrap();
    s.units[ui].rules.volley_fire_mut().cover = Some(true);
    let ev = run(r.as_ref(), &s, &fire, &[4, 3, 6, 1]).unwrap();
    let down = ev
        .iter()
        .filter(|e| matches!(e, Event::Wounded { .. }))
        .count();
    assert_eq!(down, 1, "in cover only the 6 hits");
}
