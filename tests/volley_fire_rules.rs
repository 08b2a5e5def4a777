//! Volley Fire!: the printed tables (firing table, ranges in feet, move dice
//! by formation, melee modifiers, morale table) as the data file holds them,
//! the fire/melee arithmetic and its exact odds, and a scripted game whose
//! log replays to the same state.

use approx::assert_relative_eq;
use spotter::game::Game;
use spotter::game::script::Script;
use spotter::rules::Registry;
use spotter::rules::volley_fire::{
    FireDie, MeleeFighter, MoraleResult, VolleyFire, die_hits, double_time, fire_odds,
    move_distribution, pair_odds,
};

fn data() -> VolleyFire {
    VolleyFire::builtin().expect("built-in Volley Fire! data")
}

#[test]
fn scale_is_one_foot_to_25_yards() {
    let d = data();
    assert_relative_eq!(d.scale.yards_per_foot, 25.0);
    assert_relative_eq!(d.scale.table_in_per_foot, 12.0);
    assert_eq!(d.turn.phases, ["move", "fire", "melee", "morale"]);
}

#[test]
fn firing_table_and_ranges_as_printed() {
    let d = data();
    let w = |n: &str| d.weapon.get(n).expect(n).clone();
    assert_eq!(w("sudanese-rifles").hit_max, [12, 10, 8]);
    assert_eq!(w("sudanese-rifles").hit_max_double_rank, [14, 12, 10]);
    assert_eq!(w("sudanese-rifles").range_ft, [4.0, 8.0, 12.0]);
    assert_eq!(w("mounted-carbines").hit_max, [8, 6, 4]);
    assert_eq!(w("mounted-carbines").range_ft, [3.0, 6.0, 9.0]);
    assert_eq!(w("dervish-rifles").hit_max, [10, 8, 6]);
    assert_eq!(w("dervish-rifles").range_ft, [3.0, 6.0, 9.0]);
    assert_eq!(w("dervish-spears").hit_max, [8]);
    assert_eq!(w("dervish-spears").range_ft, [2.0]);
    assert_eq!(w("gardner-gun").hit_max, [14, 12, 10]);
    assert_eq!(&w("gardner-gun").range_ft[..2], [5.0, 10.0]);
    assert!(w("gardner-gun").range_ft[2].is_infinite(), "10 ft and over");
    assert_eq!(w("pistols").pistol_dice, [6, 4, 2]);
    assert_eq!(w("pistols").range_ft, [1.0, 2.0, 3.0]);
    assert_eq!(d.fire.pistol_hit_face, 6);
    assert_relative_eq!(d.fire.cone_deg, 45.0);
    assert_eq!(d.band_edges_in(&w("sudanese-rifles")), [48.0, 96.0, 144.0]);
}

#[test]
fn move_dice_by_formation_as_printed() {
    let d = data();
    let m = |t: &str, f: &str| d.move_dice(t, f, true).expect("move dice");
    assert_eq!(
        (
            m("sudanese", "line"),
            m("sudanese", "column"),
            m("sudanese", "square")
        ),
        (3, 4, 2)
    );
    assert_eq!(
        (m("british-cavalry", "line"), m("british-cavalry", "column")),
        (5, 6)
    );
    assert_eq!(
        d.move_dice("british-cavalry", "square", true),
        None,
        "cavalry has no square"
    );
    assert_eq!(
        (
            m("british-guns", "deployed"),
            m("british-guns", "limbered"),
            m("british-guns", "square")
        ),
        (3, 4, 2)
    );
    assert_eq!(m("dervish-foot", "mass"), 4);
    assert_eq!(m("dervish-horse", "mass"), 6);
    assert_eq!(m("mounted-leaders", "any"), 5);
    // No leader: one die less. Rough ground halves (rounding up), except
    // for Dervish foot and mounted leaders.
    assert_eq!(d.move_dice("sudanese", "line", false), Some(2));
    assert!(d.terrain_halves("sudanese"));
    assert!(!d.terrain_halves("dervish-foot"));
    assert!(!d.terrain_halves("mounted-leaders"));
    let half = move_distribution(1, true, d.movement.terrain_divisor);
    // 1d6 halved up: 1,1,2,2,3,3.
    assert_relative_eq!(half[1], 2.0 / 6.0);
    assert_relative_eq!(half[3], 2.0 / 6.0);
    assert_relative_eq!(
        move_distribution(3, false, 2).iter().sum::<f64>(),
        1.0,
        epsilon = 1e-12
    );
    assert_relative_eq!(d.movement.dervish_leader_radius_in, 24.0);
}

#[test]
fn melee_modifiers_as_printed() {
    let d = data();
    let m = |k: &str| d.melee.modifier.get(k).expect(k).clone();
    assert_eq!(
        (m("sudanese/square").add, m("sudanese/square").defence_only),
        (2, true)
    );
    assert_eq!(m("british-cavalry/line").add, 2);
    assert_eq!(m("british-cavalry/column").add, 1);
    assert!(m("british-cavalry/other").win_ties);
    assert_eq!(m("sudanese/single-rank").add, 1);
    assert_eq!(
        (
            m("sudanese/double-rank").add,
            m("sudanese/double-rank").win_ties
        ),
        (1, true)
    );
    assert_eq!(m("sudanese/column").add, 0);
    assert!(m("sudanese/other").win_ties);
    for k in [
        "british-gunners",
        "foot-officer",
        "foot-swordsmen",
        "defending-works",
    ] {
        assert_eq!((m(k).add, m(k).win_ties), (1, true), "{k}");
    }
    assert_eq!(m("mounted-officer").add, 2);
    assert_eq!(m("dervish-horse").add, 1);
    assert_eq!(m("dervish-spearmen").add, 1);
    assert_eq!(m("dervish-riflemen").add, 0);
    assert_eq!(m("shaken").add, -1);
    assert_eq!(m("rear").add, -2);
    assert_relative_eq!(d.melee.support_in, 6.0);
    assert_eq!((d.melee.casualty_max, d.melee.rear_casualty_max), (1, 2));
    assert_eq!(
        (
            d.melee.fall_back_dice,
            d.melee.shaken_move_dice,
            d.melee.still_shaken_min
        ),
        (6, 2, 5)
    );
}

#[test]
fn morale_table_as_printed() {
    let d = data();
    assert_relative_eq!(d.morale.test_below_fraction, 0.5);
    assert_eq!(d.morale.die, 10);
    let s = |f| d.morale_result("sudanese", f).expect("sudanese");
    let v = |f| d.morale_result("dervish", f).expect("dervish");
    for f in 5..=10 {
        assert_eq!(s(f), MoraleResult::Holds);
    }
    for f in 2..=4 {
        assert_eq!(s(f), MoraleResult::Routs);
    }
    assert_eq!(s(1), MoraleResult::Disaster);
    for f in 6..=10 {
        assert_eq!(v(f), MoraleResult::Holds);
    }
    for f in 3..=5 {
        assert_eq!(v(f), MoraleResult::Routs);
    }
    assert_eq!(
        (v(1), v(2)),
        (MoraleResult::Disaster, MoraleResult::Disaster)
    );
}

fn die(hit_max: u32, firers: u32) -> FireDie {
    FireDie {
        hit_max,
        firers,
        half_effect: false,
        cover: false,
        mixed_key_target: false,
        gun: false,
    }
}

#[test]
fn fire_groups_dice_and_hits() {
    let d = data();
    // One d20 per 13-20 infantry; 12 or fewer at half effect.
    assert_eq!(d.fire_groups(24, false), [(20, false), (4, true)]);
    assert_eq!(d.fire_groups(13, false), [(13, false)]);
    assert_eq!(d.fire_groups(12, false), [(12, true)]);
    assert_eq!(d.fire_groups(40, false), [(20, false), (20, false)]);
    // One per 7-15 cavalrymen; 6 or fewer at half effect.
    assert_eq!(d.fire_groups(7, true), [(7, false)]);
    assert_eq!(d.fire_groups(20, true), [(15, false), (5, true)]);
    let full = die(12, 20);
    assert_eq!(die_hits(&d, &full, 9).hits, 9);
    assert_eq!(die_hits(&d, &full, 13).hits, 0);
    let half = FireDie {
        half_effect: true,
        ..die(12, 12)
    };
    assert_eq!(die_hits(&d, &half, 9).hits, 5, "half of 9 rounds up");
    let cover = FireDie {
        cover: true,
        ..die(12, 20)
    };
    assert_eq!(die_hits(&d, &cover, 7).hits, 4);
    // Hits never exceed the men firing.
    assert_eq!(die_hits(&d, &die(14, 5), 11).hits, 5);
    // Key figures on 1-2 in a mixed group.
    let mixed = FireDie {
        mixed_key_target: true,
        ..die(12, 20)
    };
    assert_eq!(die_hits(&d, &mixed, 2).key_hits, 2);
    assert_eq!(die_hits(&d, &mixed, 3).key_hits, 0);
    // The Gardner gun jams on a 20.
    let gun = FireDie {
        gun: true,
        ..die(14, u32::MAX)
    };
    assert!(die_hits(&d, &gun, 20).jammed);
    assert_eq!(die_hits(&d, &gun, 14).hits, 14);
    assert_eq!(
        (
            d.fire.gun_jam_face,
            d.fire.hits_per_gunner,
            d.fire.gun_cover_gunners_max
        ),
        (20, 2, 2)
    );
    assert_relative_eq!(d.fire.gun_jam_fall_back_in, 12.0);
    assert_eq!(
        (
            d.fire.leader_hit_face,
            d.fire.commander_killed_face,
            d.fire.commander_wounded_face
        ),
        (20, 20, 19)
    );
}

#[test]
fn fire_odds_are_exact() {
    let d = data();
    let o = fire_odds(&d, &[die(12, 20)]);
    assert_relative_eq!(o.p_any_hit, 12.0 / 20.0, epsilon = 1e-12);
    assert_relative_eq!(o.hits[5], 1.0 / 20.0, epsilon = 1e-12);
    assert_relative_eq!(
        o.mean_hits,
        (1..=12).sum::<u32>() as f64 / 20.0,
        epsilon = 1e-12
    );
    assert_relative_eq!(o.p_leader_hit, 12.0 / 20.0 / 20.0, epsilon = 1e-12);
    assert_relative_eq!(o.p_commander_killed, 1.0 / 20.0);
    assert_relative_eq!(o.p_commander_wounded, 1.0 / 20.0);
    let two = fire_odds(&d, &[die(12, 20), die(12, 20)]);
    assert_relative_eq!(two.hits.iter().sum::<f64>(), 1.0, epsilon = 1e-12);
    assert_relative_eq!(two.hits[0], 0.4 * 0.4, epsilon = 1e-12);
    let gun = fire_odds(
        &d,
        &[FireDie {
            gun: true,
            ..die(14, u32::MAX)
        }],
    );
    assert_relative_eq!(gun.p_jam, 1.0 / 20.0, epsilon = 1e-12);
}

#[test]
fn melee_pairs_and_double_time() {
    let d = data();
    let even = pair_odds(&d, MeleeFighter::default(), MeleeFighter::default(), false);
    assert_relative_eq!(even.p_a_wins, 15.0 / 36.0, epsilon = 1e-12);
    assert_relative_eq!(even.p_tie, 6.0 / 36.0, epsilon = 1e-12);
    // Loser with a 1 is a casualty: B loses with a 1 when A shows 2..6.
    assert_relative_eq!(
        even.p_b_casualty,
        (5.0 / 36.0) / (30.0 / 36.0),
        epsilon = 1e-12
    );
    let ties = pair_odds(
        &d,
        MeleeFighter {
            add: 1,
            win_ties: true,
        },
        MeleeFighter::default(),
        false,
    );
    assert_relative_eq!(ties.p_tie, 0.0);
    assert_relative_eq!(ties.p_a_wins, 26.0 / 36.0, epsilon = 1e-12);
    let rear = pair_odds(&d, MeleeFighter::default(), MeleeFighter::default(), true);
    assert!(rear.p_b_casualty > even.p_b_casualty);
    // Double time: the sum is added; Sudanese lose the low die, British the
    // high die, nobody on doubles.
    assert_eq!(double_time([2, 5], false), (7, 2));
    assert_eq!(double_time([2, 5], true), (7, 5));
    assert_eq!(double_time([4, 4], true), (8, 0));
}

/// The measured item of issue 13: "a longer Volley Fire! one (a charge
/// with defensive fire and a response, a melee with a rear attack and a
/// fall-back, a Gardner gun jam, army morale) run through `spotter play
/// --script` and replay from the log".
#[test]
fn scripted_game_plays_charges_melees_a_jam_and_army_morale_and_replays() {
    let registry = Registry::builtin().expect("rule sets");
    let script = Script::load(
        std::path::Path::new("scenarios/scripts/vf-sudan-patrol.toml"),
        &registry,
    )
    .expect("script loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("vf.jsonl");
    let mut notes = Vec::new();
    let played = script.play(&registry, Some(&log), |step, _, events| {
        for e in events {
            match e {
                spotter::game::Event::Note { text } => notes.push(format!("{step}: {text}")),
                spotter::game::Event::Rolled { purpose, .. } => {
                    notes.push(format!("{step}: rolled {purpose}"));
                }
                _ => {}
            }
        }
    });
    let game = played.unwrap_or_else(|e| panic!("script plays: {e:?}\n{}", notes.join("\n")));
    let said = |what: &str| notes.iter().any(|n| n.contains(what));
    let all = notes.join("\n");
    // A charge with defensive fire and the charged unit's response.
    assert!(said("gives defensive fire"), "{all}");
    assert!(said("responds to the charge"), "{all}");
    // A melee with a rear attack, lost with its fall-back.
    assert!(said("hit from the rear"), "{all}");
    assert!(said("loses the melee, falls back"), "{all}");
    // The Gardner jams.
    assert!(said("jams: gun and crew fall back"), "{all}");
    // Army morale.
    assert!(said("army morale"), "{all}");
    assert!(said("moves first"), "the first-move roll");
    let dead = game.state().figures.iter().filter(|f| !f.active()).count();
    assert!(dead > 0, "fire took effect");
    let replayed = Game::resume(&log, &registry).expect("log resumes");
    assert_eq!(replayed.state(), game.state());
    assert_eq!(game.replay().last(), Some(game.state()));
}
