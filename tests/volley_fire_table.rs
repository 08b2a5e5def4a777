//! Volley Fire! rules a player uses at the table that the engine did not
//! check before: the scouts' limit and their evasion, the melee winner's
//! bonus move, support in melee (and the square that cannot give it),
//! the Gardner gun's self-destruction and its jam inside a square, and
//! concealment. Each test quotes the sentence it enforces.

use nalgebra::Vector2;
use spotter::core::RefusalKind;
use spotter::game::{Event, GameState, Scenario};
use spotter::rules::Registry;
use spotter::rules::dice::TypedDice;
use spotter::rules::volley_fire::event::Event as VfEvent;
use spotter::spec::SourceFile;

use crate::common::refusal_kind;
use crate::common::volley_fire::{PATROL, action, apply, at, resolve, setup, shift_unit};

fn face_unit(s: &mut GameState, unit: &str, facing_deg: f64) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        s.figures[id.index()].placement.facing_deg = facing_deg;
    }
}

fn notes(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Figures of `unit` that an event moves, with the distance.
fn moves_of(s: &GameState, ev: &[Event], unit: &str) -> Vec<f64> {
    let (_, u) = s.unit_named(unit).unwrap();
    ev.iter()
        .filter_map(|e| match e {
            Event::Moved {
                figure,
                distance_in,
                ..
            } if u.figures.contains(figure) => Some(*distance_in),
            _ => None,
        })
        .collect()
}

fn rolled(ev: &[Event], purpose: &str) -> bool {
    ev.iter()
        .any(|e| matches!(e, Event::Rolled { purpose: p, .. } if p.contains(purpose)))
}

/// "A. Sudanese/British units can choose up to 3 figures as scouts who
/// move independently from their unit."
#[test]
fn a_unit_chooses_up_to_three_figures_as_scouts() {
    let registry = Registry::builtin().unwrap();
    let text = std::fs::read_to_string(PATROL).unwrap();
    let four = text.replacen("frontage = 3\ncount = 3", "frontage = 4\ncount = 4", 1);
    assert_ne!(four, text);
    let err = Scenario::from_source(&SourceFile::from_text("vf.toml", four), &registry)
        .expect_err("four scouts are one too many")
        .to_string();
    assert!(err.contains("up to 3 figures as scouts"), "{err}");
    // The rule set refuses it when it prepares the game, with its kind.
    let (mut s, r) = setup();
    let (_, u) = s.unit_named("1st Section").unwrap();
    let extra = u.figures[0];
    let (si, _) = s.unit_named("Scouts").unwrap();
    s.units[si].figures.push(extra);
    assert_eq!(refusal_kind(r.prepare(&mut s)), RefusalKind::CannotDo);
    // Three are fine, and so is the demo's picket (three scouts and the NCO).
    let (mut s, r) = setup();
    r.prepare(&mut s).expect("three scouts");
    Scenario::load(
        std::path::Path::new("scenarios/demo-volley-fire.toml"),
        &registry,
    )
    .expect("the demo's picket follows the text");
}

/// "E. Scouts can attempt to evade fire and melee' combat by rolling three
/// D6. An even number, they can move away that distance, an odd number and
/// they stand in place, surprised." (Fire.)
#[test]
fn scouts_evade_fire_on_three_d6_even_moves_them_away() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Dervishes");
    // The riflemen turn to face the scouts (bearing about 337 degrees).
    face_unit(&mut s, "Riflemen", 337.0);
    let fire = |evade: bool| {
        action(
            "fire",
            serde_json::json!({"unit": "Riflemen", "target": "Scouts", "evade": evade}),
        )
    };
    r.check(&s, &fire(true)).expect("scouts may try to evade");
    // Even (2 + 2 + 2 = 6): they move 6 in away, then the fire is given
    // at where they stand.
    let ev = resolve(r.as_ref(), &s, &fire(true), &[2, 2, 2]);
    assert!(rolled(&ev, "try to evade"), "{:?}", notes(&ev));
    let moved = moves_of(&s, &ev, "Scouts");
    assert_eq!(moved.len(), 3, "{:?}", notes(&ev));
    for d in moved {
        approx::assert_relative_eq!(d, 6.0, epsilon = 1e-6);
    }
    // Odd (1 + 2 + 2 = 5): they stand in place, surprised, and are fired at.
    let ev = resolve(r.as_ref(), &s, &fire(true), &[1, 2, 2]);
    assert!(moves_of(&s, &ev, "Scouts").is_empty());
    assert!(notes(&ev).iter().any(|n| n.contains("surprised")));
    assert!(rolled(&ev, "fire"));
    // Without the attempt no evasion die is rolled.
    let ev = resolve(r.as_ref(), &s, &fire(false), &[]);
    assert!(!rolled(&ev, "try to evade"));
    // Only scouts evade this way.
    let at_section = action(
        "fire",
        serde_json::json!({"unit": "Riflemen", "target": "1st Section", "evade": true}),
    );
    assert_eq!(
        refusal_kind(r.check(&s, &at_section)),
        RefusalKind::CannotDo
    );
}

/// "E. Scouts can attempt to evade fire and melee' combat by rolling three
/// D6. An even number, they can move away that distance, an odd number and
/// they stand in place, surprised." (Melee.)
#[test]
fn scouts_evade_melee_on_three_d6_and_no_melee_is_fought() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    let melee = |evade: bool| {
        action(
            "melee",
            serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts", "evade": evade}),
        )
    };
    r.check(&s, &melee(true)).expect("the scouts may try");
    let ev = resolve(r.as_ref(), &s, &melee(true), &[6, 4, 2]);
    assert_eq!(moves_of(&s, &ev, "Scouts").len(), 3);
    assert!(!rolled(&ev, "melee pair"), "{:?}", notes(&ev));
    assert!(notes(&ev).iter().any(|n| n.contains("evade the melee")));
    // The attacker has spent its action.
    let after = apply(&s, &ev);
    assert_eq!(
        refusal_kind(r.check(&after, &melee(false))),
        RefusalKind::AlreadyActed
    );
    // Odd: they stand, surprised, and the melee is fought.
    let ev = resolve(r.as_ref(), &s, &melee(true), &[6, 4, 1]);
    assert!(rolled(&ev, "melee pair"));
    assert!(notes(&ev).iter().any(|n| n.contains("surprised")));
    // Swordsmen are no scouts.
    let back = action(
        "melee",
        serde_json::json!({"attacker": "Scouts", "defender": "Swordsmen", "evade": true}),
    );
    assert_eq!(refusal_kind(r.check(&s, &back)), RefusalKind::CannotDo);
}

/// "E. The winner of the melee can reform and or reface on the objective,
/// or move one normal move distance and reface and reform. Winner cannot
/// use this bonus move to initiate another melee'."
#[test]
fn the_melee_winner_reforms_or_moves_one_normal_move() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    let bonus = |p: serde_json::Value| action("winner-move", p);
    let move_on = bonus(serde_json::json!({"unit": "Swordsmen", "to_in": [60.0, 26.0]}));
    assert_eq!(
        refusal_kind(r.check(&s, &move_on)),
        RefusalKind::CannotDo,
        "no melee won yet"
    );
    // Every die a 1: the swordsmen (+1, win ties) win each pair.
    let ev = resolve(r.as_ref(), &s, &melee, &[]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::VolleyFire(VfEvent::MeleeWon { at: Some(_), .. })))
    );
    let won = apply(&s, &ev);
    r.check(&won, &move_on).expect("the winner's bonus");
    // Not the loser, not a unit that did not fight.
    for other in ["Scouts", "Hadendowa"] {
        let p = bonus(serde_json::json!({ "unit": other }));
        assert_eq!(refusal_kind(r.check(&won, &p)), RefusalKind::CannotDo);
    }
    // Not to end in contact with another enemy (the Gardner at 50, 8).
    let into =
        bonus(serde_json::json!({"unit": "Swordsmen", "to_in": [50.0, 10.5], "facing_deg": 90.0}));
    assert_eq!(refusal_kind(r.check(&won, &into)), RefusalKind::CannotDo);
    // One normal move: the Dervish foot's 4 d6, less one without a leader
    // within 24 in (2 + 2 + 2 = 6 in of the 4.5 asked for).
    let ev = resolve(r.as_ref(), &won, &move_on, &[2, 2, 2]);
    let moved = moves_of(&won, &ev, "Swordsmen");
    assert_eq!(moved.len(), 6);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::VolleyFire(VfEvent::MeleeWon { at: None, .. })))
    );
    let after = apply(&won, &ev);
    assert_eq!(
        refusal_kind(r.check(&after, &move_on)),
        RefusalKind::CannotDo,
        "once"
    );
    // Reform and reface on the objective: no dice.
    let reface = bonus(serde_json::json!({"unit": "Swordsmen", "facing_deg": 0.0}));
    let ev = r
        .resolve(&won, &reface, &mut TypedDice::new(Vec::new()))
        .expect("no dice for reforming in place");
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Moved { facing_deg, .. } if facing_deg.abs() < 1e-9
    )));
    // Only in the melee phase.
    let mut moving = won.clone();
    at(&mut moving, 0, "Dervishes");
    assert_eq!(
        refusal_kind(r.check(&moving, &move_on)),
        RefusalKind::WrongPhase
    );
}

/// "B. Any defending figures within 6" of the initially contacted figures
/// are considered support and will fight in the melee'." and "D. [Squares]
/// Cannot initiate any melee's and cannot support other melee's."
#[test]
fn friends_within_six_inches_support_a_melee_but_a_square_does_not() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Dervishes");
    // The Gardner's crew comes up 4 in behind the scouts.
    shift_unit(&mut s, "Gardner", Vector2::new(10.0, 8.0));
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    // Each pair: the swordsman's 6 beats a 2 (the gunners' +1 too) and the
    // defender goes to the rear: six pairs, then the last one; then six d6
    // of fall-back.
    let pairs: Vec<u32> = [6, 2].repeat(7);
    let ev = resolve(r.as_ref(), &s, &melee, &pairs);
    let said = notes(&ev).join("\n");
    assert!(
        said.contains("fight 7 of Scouts with support from Gardner"),
        "{said}"
    );
    let shaken: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            Event::VolleyFire(VfEvent::Shaken { unit, shaken: true }) => Some(*unit),
            _ => None,
        })
        .collect();
    let (gi, _) = s.unit_named("Gardner").unwrap();
    let (si, _) = s.unit_named("Scouts").unwrap();
    assert_eq!(shaken, vec![si, gi], "the losing force falls back: {said}");
    // In square, the crew does not support.
    s.units[gi].formation = "square".into();
    let ev = resolve(r.as_ref(), &s, &melee, &pairs);
    let said = notes(&ev).join("\n");
    assert!(said.contains("fight 3 of Scouts"), "{said}");
    assert!(!said.contains("support from"), "{said}");
}

fn place(s: &mut GameState, figure: &str, x: f64, y: f64) {
    let id = s.figure_named(figure).unwrap().id;
    s.figures[id.index()].placement.center_in_table = nalgebra::Point2::new(x, y);
}

fn keep_only(s: &mut GameState, unit: &str, names: &[&str]) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        let f = &mut s.figures[id.index()];
        if !names.contains(&f.name.as_str()) {
            f.wound = Some(spotter::rules::stand_to::Wound::Killed);
        }
    }
}

fn expose(s: &mut GameState, unit: &str) {
    let turn = s.turn;
    let (ui, _) = s.unit_named(unit).unwrap();
    s.units[ui].rules.volley_fire_mut().exposed_turn = Some(turn);
}

fn why(r: Result<(), spotter::rules::RuleError>) -> String {
    match r {
        Err(spotter::rules::RuleError::Refused(refusal)) => refusal.why,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// "C. To self-destroy a gun, announce same prior to any melee, If a 6 is
/// rolled on a D6, cannot do so."
#[test]
fn a_gun_crew_destroys_its_gun_before_any_melee_failing_on_a_six() {
    let (mut s, r) = setup();
    at(&mut s, 2, "Sudanese");
    let destroy = action("destroy-gun", serde_json::json!({"unit": "Gardner"}));
    r.check(&s, &destroy).expect("before any melee");
    let not_a_gun = action("destroy-gun", serde_json::json!({"unit": "1st Section"}));
    assert_eq!(refusal_kind(r.check(&s, &not_a_gun)), RefusalKind::CannotDo);
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    // A 3: destroyed; it never fires again, and is not destroyed twice.
    let gone = apply(&s, &resolve(r.as_ref(), &s, &destroy, &[3]));
    assert_eq!(
        refusal_kind(r.check(&gone, &destroy)),
        RefusalKind::CannotDo
    );
    let mut firing = gone.clone();
    at(&mut firing, 1, "Sudanese");
    assert_eq!(refusal_kind(r.check(&firing, &fire)), RefusalKind::CannotDo);
    // A 6: it cannot; the gun still fires, and there is no second try.
    let kept = apply(&s, &resolve(r.as_ref(), &s, &destroy, &[6]));
    assert_eq!(
        refusal_kind(r.check(&kept, &destroy)),
        RefusalKind::CannotDo
    );
    let mut firing = kept.clone();
    at(&mut firing, 1, "Sudanese");
    r.check(&firing, &fire).expect("the gun is whole");
    // Once a melee has been fought in the phase it is too late.
    let melee = action(
        "melee",
        serde_json::json!({"attacker": "Swordsmen", "defender": "Scouts"}),
    );
    let fought = apply(&s, &resolve(r.as_ref(), &s, &melee, &[]));
    assert_eq!(
        refusal_kind(r.check(&fought, &destroy)),
        RefusalKind::CannotDo
    );
    // Only in the melee phase.
    let mut early = s.clone();
    at(&mut early, 1, "Sudanese");
    assert_eq!(
        refusal_kind(r.check(&early, &destroy)),
        RefusalKind::WrongPhase
    );
}

/// "G. Gun jams if a 20 is rolled on the firing die. Gun and crew fall back
/// 12" to clear the jam (will not leave building or square), and does not
/// fire that turn."
#[test]
fn a_jammed_gun_in_a_square_does_not_leave_it() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    // The Gardner stands in the middle of the table, inside the section's
    // hollow square (its sides 8 in, six men each).
    shift_unit(&mut s, "Gardner", Vector2::new(0.0, 16.0));
    let (si, sec) = s.unit_named("1st Section").unwrap();
    let men = sec.figures.clone();
    s.units[si].formation = "square".into();
    for (k, id) in men.iter().enumerate() {
        let (side, i) = (k / 6, k % 6);
        let along = -3.75 + 1.5 * i as f64;
        let (x, y) = match side {
            0 => (50.0 + along, 28.0),
            1 => (54.0, 24.0 + along),
            2 => (50.0 + along, 20.0),
            _ => (46.0, 24.0 + along),
        };
        s.figures[id.index()].placement.center_in_table = nalgebra::Point2::new(x, y);
    }
    // The Hadendowa 8 in ahead, in the gun's cone.
    shift_unit(&mut s, "Hadendowa", Vector2::new(14.0, -8.0));
    let fire = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Hadendowa"}),
    );
    let before = s
        .figure_named("Gardner 1")
        .unwrap()
        .placement
        .center_in_table;
    let ev = resolve(r.as_ref(), &s, &fire, &[20]);
    let after = apply(&s, &ev);
    let now = after
        .figure_named("Gardner 1")
        .unwrap()
        .placement
        .center_in_table;
    let back = before.y - now.y;
    assert!(
        back > 3.5 && back <= 4.0 + 1e-9,
        "fell back {back} in: {:?}",
        notes(&ev)
    );
    // Not in a square: the full 12 in.
    s.units[si].formation = "double-rank".into();
    let after = apply(&s, &resolve(r.as_ref(), &s, &fire, &[20]));
    let now = after
        .figure_named("Gardner 1")
        .unwrap()
        .placement
        .center_in_table;
    approx::assert_relative_eq!(before.y - now.y, 12.0, epsilon = 1e-6);
}

/// "C. No firing into concealment unless a target is visible." and "B.
/// Visibility distance is the full table except into cover when the viewer
/// must be 6" away and can only see 6" into" and "E. Visibility into cover
/// from the edge of is 12"."
#[test]
fn no_firing_into_concealment_unless_a_target_is_visible() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Riflemen"}),
    );
    // From 23 in off, the riflemen in the scrub are not seen.
    let refused = r.check(&s, &fire);
    assert!(why(refused.clone()).contains("concealment"), "{refused:?}");
    assert_eq!(refusal_kind(refused), RefusalKind::OutOfSight);
    // From 3 in off the scrub (y = 31), 6 in into it is seen: the riflemen
    // at its edge are.
    let mut near = s.clone();
    shift_unit(&mut near, "1st Section", Vector2::new(-12.0, 20.0));
    r.check(&near, &fire).expect("seen from within 6 in");
    // Riflemen 7 in and more inside: not from 3 in off, but from its edge
    // (1 in off, which sees 12 in into it).
    shift_unit(&mut near, "Riflemen", Vector2::new(0.0, 7.0));
    assert_eq!(refusal_kind(r.check(&near, &fire)), RefusalKind::OutOfSight);
    let mut edge = near.clone();
    shift_unit(&mut edge, "1st Section", Vector2::new(0.0, 2.0));
    r.check(&edge, &fire).expect("seen from the edge");
}

/// "Concealed troops must be at the edge of any cover to fire out and
/// they will then be exposed."
#[test]
fn concealed_troops_fire_out_from_the_edge_and_are_exposed() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Dervishes");
    let out = action(
        "fire",
        serde_json::json!({"unit": "Riflemen", "target": "1st Section"}),
    );
    r.check(&s, &out)
        .expect("the riflemen line the scrub's edge");
    let mut deep = s.clone();
    shift_unit(&mut deep, "Riflemen", Vector2::new(0.0, 5.0));
    assert_eq!(refusal_kind(r.check(&deep, &out)), RefusalKind::OutOfSight);
    // Having fired, they are exposed: the section sees them from afar.
    let ev = resolve(r.as_ref(), &s, &out, &[]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::VolleyFire(VfEvent::Exposed { .. })))
    );
    let mut after = apply(&s, &ev);
    // The section, 20 in off the scrub (and within 24 in of the riflemen).
    shift_unit(&mut after, "1st Section", Vector2::new(0.0, 3.0));
    let back = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Riflemen"}),
    );
    assert_eq!(refusal_kind(r.check(&s, &back)), RefusalKind::OutOfSight);
    r.check(&after, &back).expect("exposed");
}

/// "D. Small arms firing range into and inside woods and scrub, etc., is
/// 24". Gun range is 36"." The call near 24 in is the shared measurement's.
#[test]
fn ranges_into_woods_and_scrub_are_24_in_and_36_for_guns() {
    let (mut s, r) = setup();
    at(&mut s, 1, "Sudanese");
    expose(&mut s, "Riflemen");
    keep_only(&mut s, "Riflemen", &["Riflemen 1"]);
    keep_only(&mut s, "1st Section", &["1st Section 1"]);
    let p = s
        .figure_named("Riflemen 1")
        .unwrap()
        .placement
        .center_in_table;
    let fire = action(
        "fire",
        serde_json::json!({"unit": "1st Section", "target": "Riflemen"}),
    );
    // 25 in off: in the rifle's point-blank band in the open, beyond 24 in
    // into scrub.
    place(&mut s, "1st Section 1", p.x, p.y - 25.0);
    assert!(why(r.check(&s, &fire)).contains("in range"));
    // The Gardner reaches 36 in.
    place(&mut s, "Gardner 1", p.x + 35.0, p.y);
    face_unit(&mut s, "Gardner", 180.0);
    keep_only(&mut s, "Gardner", &["Gardner 1"]);
    let gun = action(
        "fire",
        serde_json::json!({"unit": "Gardner", "target": "Riflemen"}),
    );
    r.check(&s, &gun).expect("a gun fires 36 in into scrub");
    place(&mut s, "Gardner 1", p.x + 37.0, p.y);
    assert!(
        r.check(&s, &gun)
            .is_err_and(|e| e.to_string().contains("in range"))
    );
    // 23.9 in with a camera's uncertainty: fired, and flagged too close to
    // call.
    place(&mut s, "1st Section 1", p.x, p.y - 23.9);
    for name in ["1st Section 1", "Riflemen 1"] {
        let id = s.figure_named(name).unwrap().id;
        s.figures[id.index()].placement.sigma_in = 0.2;
    }
    let ev = resolve(r.as_ref(), &s, &fire, &[]);
    assert!(
        ev.iter().any(|e| matches!(
            e,
            Event::Measured(m) if m.too_close_to_call && m.what.contains("range")
        )),
        "{:?}",
        notes(&ev)
    );
}
