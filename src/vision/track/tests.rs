use approx::assert_relative_eq;

use super::*;

const SIGMA_IN: f64 = 0.03;
/// Seconds between still photos in these tests.
const STILL_GAP_S: f64 = 10.0;

fn det(x: f64, y: f64, facing: Option<f64>, edge: EdgeColour) -> Detection {
    Detection {
        center_in_table: Point2::new(x, y),
        facing_deg: facing,
        edge,
        base: BaseKind::Foot,
        confidence: 0.9,
        position_sigma_in: SIGMA_IN,
        appearance: None,
        side: Default::default(),
    }
}

fn frame(
    i: u32,
    detections: Vec<Detection>,
    hands: Option<Vec<OccludedRegion>>,
) -> FrameObservation {
    FrameObservation {
        time_s: f64::from(i) * STILL_GAP_S,
        detections,
        occluded_regions_in_table: hands,
    }
}

fn hand(x: f64, y: f64) -> OccludedRegion {
    OccludedRegion::Disc {
        center_in_table: Point2::new(x, y),
        radius_in: 2.0,
    }
}

fn tracker() -> Tracker {
    Tracker::new(TrackerParams::default()).unwrap()
}

/// The id of the figure nearest to (x, y).
fn id_at(report: &FrameReport, x: f64, y: f64) -> TrackId {
    report
        .figures
        .iter()
        .min_by(|a, b| {
            let da = (a.center_in_table - Point2::new(x, y)).norm();
            let db = (b.center_in_table - Point2::new(x, y)).norm();
            da.total_cmp(&db)
        })
        .unwrap()
        .id
}

fn state_of(report: &FrameReport, id: TrackId) -> FigureState {
    report.figures.iter().find(|f| f.id == id).unwrap().state
}

fn kinds_of(report: &FrameReport, id: TrackId) -> Vec<&'static str> {
    report
        .events
        .iter()
        .filter(|e| e.id == id)
        .map(|e| e.kind.name())
        .collect()
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let err = Tracker::new(TrackerParams {
        max_move_in: -1.0,
        ..TrackerParams::default()
    })
    .unwrap_err();
    assert!(matches!(
        err,
        TrackError::BadParameter {
            field: "max_move_in",
            ..
        }
    ));
}

#[test]
fn assignment_never_uses_a_forbidden_pair() {
    // Track 0 may only take detection 1; track 1 nothing.
    let out = associate::assign(&[0, 1], &[0, 1], |r, c| (r == 0 && c == 1).then_some(3.0));
    assert_eq!(out, vec![(0, 1, 3.0)]);
    // Prefers two matches to one cheaper one.
    let out = associate::assign(&[0, 1], &[0, 1], |r, c| match (r, c) {
        (0, 0) => Some(0.0),
        (0, 1) => Some(5.0),
        (1, 0) => Some(5.0),
        _ => None,
    });
    assert_eq!(out.len(), 2);
    assert!(out.contains(&(0, 1, 5.0)) && out.contains(&(1, 0, 5.0)));
}

#[test]
fn still_figures_keep_ids_and_average_out_noise() {
    let mut t = tracker();
    let truth = [(10.0, 10.0), (11.0, 10.0), (30.0, 5.0)];
    let noise = [0.04, -0.03, 0.02, -0.05, 0.01, 0.03];
    let mut ids = Vec::new();
    for (i, n) in noise.iter().enumerate() {
        let dets = truth
            .iter()
            .map(|&(x, y)| det(x + n, y - n, Some(90.0 + n * 50.0), EdgeColour::White))
            .collect();
        let r = t.update(&frame(i as u32, dets, Some(vec![])));
        assert!(r.events.is_empty(), "frame {i}: {:?}", r.events);
        ids.push(truth.map(|(x, y)| id_at(&r, x, y)));
    }
    assert!(ids.iter().all(|f| *f == ids[0]));
    let mean_noise: f64 = noise.iter().sum::<f64>() / noise.len() as f64;
    let f = t.figure(ids[0][0]).unwrap();
    assert_relative_eq!(f.center_in_table.x, 10.0 + mean_noise, epsilon = 1e-9);
}

#[test]
fn a_long_move_with_a_turn_keeps_the_id_and_counts_the_path() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, Some(0.0), EdgeColour::Red),
            det(20.0, 20.0, Some(0.0), EdgeColour::Red),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    t.begin_turn();
    // 11.5 in, turned 90 degrees; the other figure stays.
    let r = t.update(&frame(
        1,
        vec![
            det(21.5, 10.0, Some(90.0), EdgeColour::Red),
            det(20.0, 20.0, Some(0.0), EdgeColour::Red),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 21.5, 10.0), a);
    assert_eq!(kinds_of(&r, a), ["moved"]);
    let r = t.update(&frame(
        2,
        vec![
            det(21.5, 13.0, Some(90.0), EdgeColour::Red),
            det(20.0, 20.0, Some(0.0), EdgeColour::Red),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 21.5, 13.0), a);
    let m = t.turn_movement().into_iter().find(|m| m.id == a).unwrap();
    assert_relative_eq!(m.path_in, 14.5, epsilon = 1e-9);
    assert_relative_eq!(m.straight_in, 11.5_f64.hypot(3.0), epsilon = 1e-9);
    assert_relative_eq!(m.turned_deg.unwrap(), 90.0, epsilon = 1e-9);
}

#[test]
fn several_figures_moved_at_once_keep_their_ids() {
    // A line of five white figures; three advance 6-9 in in different
    // directions, each turned a little, in one step.
    let mut t = tracker();
    let start = [
        (10.0, 10.0, 90.0),
        (12.0, 10.0, 90.0),
        (14.0, 10.0, 90.0),
        (16.0, 10.0, 90.0),
        (18.0, 10.0, 90.0),
    ];
    let r = t.update(&frame(
        0,
        start
            .iter()
            .map(|&(x, y, f)| det(x, y, Some(f), EdgeColour::White))
            .collect(),
        Some(vec![]),
    ));
    let ids: Vec<TrackId> = start.iter().map(|&(x, y, _)| id_at(&r, x, y)).collect();
    let end = [
        (10.0, 10.0, 90.0),
        (9.0, 18.0, 100.0),
        (14.0, 10.0, 90.0),
        (17.0, 17.0, 80.0),
        (24.0, 14.0, 60.0),
    ];
    let r = t.update(&frame(
        1,
        end.iter()
            .map(|&(x, y, f)| det(x, y, Some(f), EdgeColour::White))
            .collect(),
        Some(vec![]),
    ));
    for (k, &(x, y, _)) in end.iter().enumerate() {
        assert_eq!(id_at(&r, x, y), ids[k], "figure {k}");
    }
    assert_eq!(
        r.events.iter().filter(|e| e.kind.name() == "moved").count(),
        3
    );
}

#[test]
fn colour_and_base_are_never_mixed() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, None, EdgeColour::Red),
            det(20.0, 10.0, None, EdgeColour::Blue),
        ],
        Some(vec![]),
    ));
    let red = id_at(&r, 10.0, 10.0);
    let blue = id_at(&r, 20.0, 10.0);
    // The red figure goes next to where the blue one was, the blue one far.
    let r = t.update(&frame(
        1,
        vec![
            det(20.5, 10.0, None, EdgeColour::Red),
            det(28.0, 10.0, None, EdgeColour::Blue),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 20.5, 10.0), red);
    assert_eq!(id_at(&r, 28.0, 10.0), blue);
    // A mounted figure is not a foot figure, even in the same colour.
    let mut mounted = det(11.0, 10.0, None, EdgeColour::Red);
    mounted.base = BaseKind::Mounted;
    let r = t.update(&frame(
        2,
        vec![mounted, det(28.0, 10.0, None, EdgeColour::Blue)],
        Some(vec![]),
    ));
    assert_eq!(state_of(&r, red), FigureState::OnTable);
    assert!(!r.figures.iter().find(|f| f.id == red).unwrap().seen);
}

#[test]
fn a_swap_shown_by_facings_is_flagged_and_one_by_colour_is_resolved() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, Some(0.0), EdgeColour::White),
            det(14.0, 10.0, Some(180.0), EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let b = id_at(&r, 14.0, 10.0);
    // They change places, each keeping its facing: as seen from above, that
    // is also two about-turns in place. The tracker asks.
    let r = t.update(&frame(
        1,
        vec![
            det(14.0, 10.0, Some(0.0), EdgeColour::White),
            det(10.0, 10.0, Some(180.0), EdgeColour::White),
        ],
        Some(vec![]),
    ));
    assert_eq!(kinds_of(&r, a), ["ambiguous", "moved"]);
    assert_eq!(kinds_of(&r, b), ["ambiguous", "moved"]);
    if id_at(&r, 14.0, 10.0) != a {
        t.swap_identities(a, b).unwrap();
    }
    let fa = t.figure(a).unwrap();
    assert_eq!(fa.center_in_table, Point2::new(14.0, 10.0));
    assert_relative_eq!(fa.facing_deg.unwrap(), 0.0);
    // A red figure and a white one swapping are told apart by colour alone.
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, None, EdgeColour::Red),
            det(11.0, 10.0, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let red = id_at(&r, 10.0, 10.0);
    let r = t.update(&frame(
        1,
        vec![
            det(11.0, 10.0, None, EdgeColour::Red),
            det(10.0, 10.0, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 11.0, 10.0), red);
    assert!(r.events.iter().all(|e| e.kind.name() == "moved"));
}

#[test]
fn a_swap_that_cannot_be_told_apart_is_flagged_and_the_player_can_fix_it() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, None, EdgeColour::White),
            det(14.0, 10.0, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let b = id_at(&r, 14.0, 10.0);
    t.begin_turn();
    // Both moved about 6 in to places nearly as far from either start.
    let r = t.update(&frame(
        1,
        vec![
            det(12.0, 16.0, None, EdgeColour::White),
            det(12.5, 16.2, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    assert!(
        kinds_of(&r, a).contains(&"ambiguous") && kinds_of(&r, b).contains(&"ambiguous"),
        "{:?}",
        r.events
    );
    let at_left = id_at(&r, 12.0, 16.0);
    let at_right = id_at(&r, 12.5, 16.2);
    t.swap_identities(a, b).unwrap();
    assert_eq!(
        t.figure(at_left).map(|f| f.center_in_table),
        Some(Point2::new(12.5, 16.2))
    );
    assert_eq!(
        t.figure(at_right).map(|f| f.center_in_table),
        Some(Point2::new(12.0, 16.0))
    );
    assert!(t.figures().iter().all(|f| f.ambiguous_with.is_none()));
    // The corrected path runs from each id's own start.
    for m in t.turn_movement() {
        assert_relative_eq!(m.path_in, m.straight_in, epsilon = 1e-9);
    }
}

/// Issue 15: "an ambiguous assignment waits for more frames instead of
/// guessing, and says so in the app". Three look-alike figures each moved
/// 7 in round a hexagon: passing the three places round explains the frame
/// exactly as well as the choice, while no swap of two does (each swap
/// needs a 14 in move, beyond the gate). All three are flagged.
#[test]
fn three_look_alikes_that_may_have_been_passed_round_are_flagged() {
    let corner = |k: u32| {
        let a = f64::from(k) * 60f64.to_radians();
        (24.0 + 7.0 * a.cos(), 24.0 + 7.0 * a.sin())
    };
    let red = |k: u32| {
        let (x, y) = corner(k);
        det(x, y, None, EdgeColour::Red)
    };
    let mut t = tracker();
    let r = t.update(&frame(0, vec![red(0), red(2), red(4)], Some(vec![])));
    let ids = [0, 2, 4].map(|k| {
        let (x, y) = corner(k);
        id_at(&r, x, y)
    });
    t.begin_turn();
    let r = t.update(&frame(1, vec![red(1), red(3), red(5)], Some(vec![])));
    for id in ids {
        assert!(
            kinds_of(&r, id).contains(&"ambiguous"),
            "{id:?} not flagged: {:?}",
            r.events
        );
    }
    assert!(
        r.figures.iter().all(|f| f.ambiguous_with.is_some()),
        "{:?}",
        r.figures
    );
}

#[test]
fn a_lifted_figure_is_held_while_the_hand_stays_and_placed_when_it_comes_back() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, Some(0.0), EdgeColour::Red),
            det(30.0, 30.0, Some(0.0), EdgeColour::Red),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    // The hand hovers far longer than the removal time.
    for i in 1..6 {
        let r = t.update(&frame(
            i,
            vec![det(30.0, 30.0, Some(0.0), EdgeColour::Red)],
            Some(vec![hand(10.5, 10.0)]),
        ));
        assert_eq!(state_of(&r, a), FigureState::Held, "frame {i}");
        assert_eq!(
            kinds_of(&r, a),
            if i == 1 { vec!["lifted"] } else { vec![] }
        );
    }
    // Put down 7 in away, the hand gone.
    let r = t.update(&frame(
        6,
        vec![
            det(17.0, 10.0, Some(45.0), EdgeColour::Red),
            det(30.0, 30.0, Some(0.0), EdgeColour::Red),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 17.0, 10.0), a);
    assert_eq!(kinds_of(&r, a), ["placed"]);
    assert_eq!(state_of(&r, a), FigureState::OnTable);
}

/// Issue 15 (identity): the hand finder may take a static thing (the dark
/// roof of a building on tune seed 73) for a hand in every frame. A figure
/// taken off the table 5.6 in from it was held as lifted and never
/// reported removed. A hand that has not moved since the last frame did
/// not lift a figure from elsewhere; a hand that came did.
#[test]
fn a_hand_that_has_not_moved_does_not_hold_a_figure_gone_from_elsewhere() {
    let p = TrackerParams::default();
    let mut t = tracker();
    let still = || Some(vec![hand(10.0, 15.6)]);
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, None, EdgeColour::Blue),
            det(30.0, 30.0, None, EdgeColour::Blue),
        ],
        still(),
    ));
    let (a, b) = (id_at(&r, 10.0, 10.0), id_at(&r, 30.0, 30.0));
    t.update(&frame(
        1,
        vec![
            det(10.0, 10.0, None, EdgeColour::Blue),
            det(30.0, 30.0, None, EdgeColour::Blue),
        ],
        still(),
    ));
    let mut removed_at = None;
    for i in 2..8 {
        let r = t.update(&frame(
            i,
            vec![det(30.0, 30.0, None, EdgeColour::Blue)],
            still(),
        ));
        assert_ne!(state_of(&r, a), FigureState::Held, "frame {i}");
        if kinds_of(&r, a).contains(&"removed") {
            removed_at = Some(i);
            break;
        }
    }
    assert_eq!(removed_at, Some(1 + p.removal_after_frames));
    // A hand that arrives as a figure vanishes 5.6 in from it may hold it.
    let r = t.update(&frame(
        8,
        vec![],
        Some(vec![hand(10.0, 15.6), hand(30.0, 35.6)]),
    ));
    assert_eq!(state_of(&r, b), FigureState::Held);
}

#[test]
fn a_held_figure_is_removed_once_the_table_has_been_clear_for_the_settled_time() {
    let p = TrackerParams::default();
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![det(10.0, 10.0, None, EdgeColour::Green)],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    t.update(&frame(1, vec![], Some(vec![hand(10.0, 10.0)])));
    // The hand moves elsewhere with the figure: still held.
    let r = t.update(&frame(2, vec![], Some(vec![hand(30.0, 40.0)])));
    assert_eq!(state_of(&r, a), FigureState::Held);
    let mut removed_at = None;
    for i in 3..10 {
        let r = t.update(&frame(i, vec![], Some(vec![])));
        if kinds_of(&r, a).contains(&"removed") {
            removed_at = Some(i);
            break;
        }
    }
    assert_eq!(removed_at, Some(2 + p.removal_after_frames));
    assert_eq!(t.figure(a).unwrap().state, FigureState::Removed);
}

#[test]
fn a_figure_missing_in_plain_view_is_removed_by_frames_and_seconds() {
    let params = TrackerParams {
        removal_after_frames: 3,
        removal_after_s: 1.0,
        ..TrackerParams::default()
    };
    let mut t = Tracker::new(params).unwrap();
    let keep = det(30.0, 30.0, None, EdgeColour::Blue);
    // A live camera at 10 frames a second.
    let at = |i: u32, dets: Vec<Detection>| FrameObservation {
        time_s: f64::from(i) * 0.1,
        detections: dets,
        occluded_regions_in_table: Some(vec![]),
    };
    let r = t.update(&at(
        0,
        vec![det(10.0, 10.0, None, EdgeColour::Blue), keep.clone()],
    ));
    let a = id_at(&r, 10.0, 10.0);
    // Three frames missing are only 0.3 s: not yet settled.
    for i in 1..=9 {
        let r = t.update(&at(i, vec![keep.clone()]));
        assert_eq!(state_of(&r, a), FigureState::OnTable, "frame {i}");
        assert!(r.events.is_empty());
    }
    let r = t.update(&at(10, vec![keep.clone()]));
    assert_eq!(kinds_of(&r, a), ["removed"]);
    // Never dropped: the figure is still listed, as removed.
    let r = t.update(&at(11, vec![keep]));
    assert_eq!(state_of(&r, a), FigureState::Removed);
    assert!(r.events.is_empty());
}

/// Measured on seed 75's sequence: two white figures 1.2 in apart were
/// lifted one after the other with no hand in the photos and put back in
/// the same frame, one on its own spot and one 1.4 in from its own. The
/// first had been reported removed, so the second, still missing, took the
/// nearer spot (its twin's) and the twin came back as a new figure. A
/// removed figure put down again where it stood, facing as it faced and
/// looking as it looked, is the same figure: it is placed again under its
/// own id.
#[test]
fn a_removed_figure_put_back_where_it_stood_keeps_its_id() {
    let p = TrackerParams::default();
    let mut t = tracker();
    let (a_at, b_at) = ((42.49, 31.91), (41.94, 30.89));
    let a_det = |x: f64, y: f64| det(x, y, Some(310.0), EdgeColour::White);
    let b_det = |x: f64, y: f64| det(x, y, Some(317.0), EdgeColour::White);
    let r = t.update(&frame(
        0,
        vec![a_det(a_at.0, a_at.1), b_det(b_at.0, b_at.1)],
        Some(vec![]),
    ));
    let (a, b) = (id_at(&r, a_at.0, a_at.1), id_at(&r, b_at.0, b_at.1));
    let mut i = 1;
    // a is lifted and, missing in plain view, reported removed.
    loop {
        let r = t.update(&frame(i, vec![b_det(b_at.0, b_at.1)], Some(vec![])));
        i += 1;
        if kinds_of(&r, a).contains(&"removed") {
            break;
        }
        assert!(i <= 1 + p.removal_after_frames, "a was never removed");
    }
    // b is lifted too, and both come down in the same frame.
    t.update(&frame(i, vec![], Some(vec![])));
    let r = t.update(&frame(
        i + 1,
        vec![a_det(a_at.0, a_at.1), b_det(42.83, 29.77)],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, a_at.0, a_at.1), a);
    assert_eq!(state_of(&r, a), FigureState::OnTable);
    assert!(kinds_of(&r, a).contains(&"placed"), "{:?}", r.events);
    assert_eq!(id_at(&r, 42.83, 29.77), b);
    // Nothing was added: the same two figures a frame later.
    let r = t.update(&frame(
        i + 2,
        vec![a_det(a_at.0, a_at.1), b_det(42.83, 29.77)],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 2);
}

/// A figure facing another way on a removed figure's spot is not it.
#[test]
fn a_figure_turned_away_on_a_removed_figures_spot_is_new() {
    let p = TrackerParams::default();
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![det(10.0, 10.0, Some(0.0), EdgeColour::Red)],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    for i in 1..=p.removal_after_frames + 1 {
        t.update(&frame(i, vec![], Some(vec![])));
    }
    let r = t.update(&frame(
        p.removal_after_frames + 2,
        vec![det(10.0, 10.0, Some(180.0), EdgeColour::Red)],
        Some(vec![]),
    ));
    assert_eq!(state_of(&r, a), FigureState::Removed);
    assert!(kinds_of(&r, a).is_empty(), "{:?}", r.events);
}

/// Measured on seed 76's sequence (still photos): a figure was taken 9 in
/// from a hand and, in the same photo, stood under that hand 5 in from it,
/// being put down; the next photo showed it moved on another 10 in. The
/// detection under the hand was left alone, so the figure stayed in the
/// hand, out of reach of where it went, and was lost. A held figure may be
/// put down near a detection of its kind seen under a hand where no other
/// figure stands.
#[test]
fn a_figure_seen_put_down_under_the_hand_may_move_on_from_there() {
    let mut t = tracker();
    let here = || det(40.0, 40.0, None, EdgeColour::Blue);
    let a = |x: f64, y: f64| det(x, y, Some(12.0), EdgeColour::Green);
    let r = t.update(&frame(0, vec![a(14.02, 24.5), here()], Some(vec![])));
    let id = id_at(&r, 14.02, 24.5);
    t.update(&frame(1, vec![a(14.02, 24.5), here()], Some(vec![])));
    let hand = OccludedRegion::Disc {
        center_in_table: Point2::new(22.0, 18.0),
        radius_in: 2.5,
    };
    let r = t.update(&frame(2, vec![a(23.63, 18.52), here()], Some(vec![hand])));
    assert_eq!(state_of(&r, id), FigureState::Held);
    // 12.7 in from the hand, 22 in from where it stood: out of reach of
    // both, 11.2 in from where it was seen under the hand.
    let r = t.update(&frame(3, vec![a(34.5, 16.0), here()], Some(vec![])));
    let f = r.figures.iter().find(|f| f.id == id).unwrap();
    assert_eq!(f.state, FigureState::OnTable);
    assert!(
        (f.center_in_table - Point2::new(34.5, 16.0)).norm() < 0.01,
        "{f:?}"
    );
    assert!(kinds_of(&r, id).contains(&"placed"), "{:?}", r.events);
}

#[test]
fn a_short_detector_dropout_changes_nothing() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![det(10.0, 10.0, Some(0.0), EdgeColour::Red)],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let r = t.update(&frame(1, vec![], Some(vec![])));
    assert_eq!(state_of(&r, a), FigureState::OnTable);
    assert!(r.events.is_empty());
    let r = t.update(&frame(
        2,
        vec![det(10.01, 10.0, Some(0.0), EdgeColour::Red)],
        Some(vec![]),
    ));
    assert!(r.events.is_empty(), "{:?}", r.events);
    assert!(r.figures[0].seen);
}

#[test]
fn nothing_moves_under_a_hand_and_it_is_reconciled_when_clear() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, Some(0.0), EdgeColour::White),
            det(11.0, 10.0, Some(0.0), EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let b = id_at(&r, 11.0, 10.0);
    // Under the hand the detector sees a shifted figure and a stray blob.
    let r = t.update(&frame(
        1,
        vec![
            det(10.3, 10.2, Some(20.0), EdgeColour::White),
            det(9.0, 11.5, None, EdgeColour::Red),
        ],
        Some(vec![hand(10.5, 10.0)]),
    ));
    assert!(
        r.events
            .iter()
            .all(|e| e.kind.name() != "moved" && e.kind.name() != "removed")
    );
    assert_eq!(r.figures.len(), 2, "no figure from the stray blob");
    let fa = r.figures.iter().find(|f| f.id == a).unwrap();
    assert_eq!(fa.center_in_table, Point2::new(10.0, 10.0));
    assert_eq!(state_of(&r, b), FigureState::Held);
    // Clear: b was moved under the hand; a stayed.
    let r = t.update(&frame(
        2,
        vec![
            det(10.0, 10.0, Some(0.0), EdgeColour::White),
            det(13.0, 12.0, Some(0.0), EdgeColour::White),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 13.0, 12.0), b);
    assert_eq!(kinds_of(&r, b), ["placed"]);
    assert_eq!(id_at(&r, 10.0, 10.0), a);
}

#[test]
fn without_hand_regions_a_cluster_vanishing_is_taken_as_a_hand() {
    let mut t = tracker();
    let dets = vec![
        det(10.0, 10.0, None, EdgeColour::Red),
        det(11.0, 10.0, None, EdgeColour::Red),
        det(10.5, 11.0, None, EdgeColour::Red),
        det(30.0, 30.0, None, EdgeColour::Red),
    ];
    let r = t.update(&frame(0, dets.clone(), None));
    let lone = id_at(&r, 30.0, 30.0);
    let cluster: Vec<TrackId> = [(10.0, 10.0), (11.0, 10.0), (10.5, 11.0)]
        .iter()
        .map(|&(x, y)| id_at(&r, x, y))
        .collect();
    // An arm covers the cluster for two photos; the lone figure is gone too.
    for i in 1..=2 {
        let r = t.update(&frame(i, vec![], None));
        assert_eq!(r.inferred_hands.len(), 1);
        for &c in &cluster {
            assert_eq!(state_of(&r, c), FigureState::Held);
            assert!(!kinds_of(&r, c).contains(&"removed"));
        }
        assert_eq!(
            state_of(&r, lone),
            if i < 2 {
                FigureState::OnTable
            } else {
                FigureState::Removed
            }
        );
    }
    let r = t.update(&frame(3, dets[..3].to_vec(), None));
    for (c, &(x, y)) in cluster
        .iter()
        .zip(&[(10.0, 10.0), (11.0, 10.0), (10.5, 11.0)])
    {
        assert_eq!(id_at(&r, x, y), *c);
        assert_eq!(kinds_of(&r, *c), ["placed"]);
    }
}

#[test]
fn a_new_figure_is_reported_once_confirmed() {
    let mut t = tracker();
    t.update(&frame(
        0,
        vec![det(10.0, 10.0, None, EdgeColour::Red)],
        Some(vec![]),
    ));
    let extra = det(40.0, 40.0, None, EdgeColour::Green);
    // Seen once, then gone: a false detection, never a figure.
    let r = t.update(&frame(
        1,
        vec![det(10.0, 10.0, None, EdgeColour::Red), extra.clone()],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 1);
    let r = t.update(&frame(
        2,
        vec![det(10.0, 10.0, None, EdgeColour::Red)],
        Some(vec![]),
    ));
    assert!(r.events.is_empty());
    // Seen twice: a reinforcement.
    t.update(&frame(
        3,
        vec![det(10.0, 10.0, None, EdgeColour::Red), extra.clone()],
        Some(vec![]),
    ));
    let r = t.update(&frame(
        4,
        vec![det(10.0, 10.0, None, EdgeColour::Red), extra],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 2);
    let new = id_at(&r, 40.0, 40.0);
    assert_eq!(kinds_of(&r, new), ["placed"]);
}

#[test]
fn a_moved_figure_next_to_a_vanished_twin_is_flagged() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![
            det(10.0, 10.0, None, EdgeColour::White),
            det(10.0, 16.0, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let b = id_at(&r, 10.0, 16.0);
    // One figure is now halfway between: which one moved?
    let r = t.update(&frame(
        1,
        vec![det(10.2, 13.0, None, EdgeColour::White)],
        Some(vec![]),
    ));
    assert!(kinds_of(&r, a).contains(&"ambiguous"));
    assert!(kinds_of(&r, b).contains(&"ambiguous"));
    t.confirm(a).unwrap();
    assert!(t.figures().iter().all(|f| f.ambiguous_with.is_none()));
    assert_eq!(
        t.confirm(TrackId(99)),
        Err(TrackError::UnknownFigure(TrackId(99)))
    );
}

#[test]
fn a_slid_figure_is_followed_by_its_motion() {
    // A live camera: a figure pushed along at 20 in/s passes a still twin.
    let mut t = tracker();
    let at = |i: u32, x: f64| FrameObservation {
        time_s: f64::from(i) * 0.05,
        detections: vec![
            det(x, 10.0, None, EdgeColour::Blue),
            det(14.0, 10.3, None, EdgeColour::Blue),
        ],
        occluded_regions_in_table: Some(vec![]),
    };
    let r = t.update(&at(0, 10.0));
    let slid = id_at(&r, 10.0, 10.0);
    let still = id_at(&r, 14.0, 10.3);
    for i in 1..=12 {
        let x = 10.0 + f64::from(i) * 1.0;
        let r = t.update(&at(i, x));
        assert_eq!(id_at(&r, x, 10.0), slid, "frame {i}");
        assert_eq!(id_at(&r, 14.0, 10.3), still, "frame {i}");
    }
}

#[test]
fn a_move_given_to_a_missed_twin_is_put_right_next_frame() {
    // A and B are white twins. In one photo B moves 11.9 in while the
    // detector misses A, which stood 4 in from B's new place: A looks like
    // the mover. Next photo A is seen again where it stood, out of B's
    // reach: B was the mover after all.
    let mut t = tracker();
    let a_at = (20.0, 20.0);
    let b_at = (8.5, 27.0);
    let q = (20.0, 24.0);
    let r = t.update(&frame(
        0,
        vec![
            det(a_at.0, a_at.1, None, EdgeColour::White),
            det(b_at.0, b_at.1, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, a_at.0, a_at.1);
    let b = id_at(&r, b_at.0, b_at.1);
    t.begin_turn();
    let r = t.update(&frame(
        1,
        vec![det(q.0, q.1, None, EdgeColour::White)],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, q.0, q.1), a, "the likelier reading of one photo");
    let r = t.update(&frame(
        2,
        vec![
            det(a_at.0, a_at.1, None, EdgeColour::White),
            det(q.0, q.1, None, EdgeColour::White),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, a_at.0, a_at.1), a);
    assert_eq!(id_at(&r, q.0, q.1), b);
    assert_eq!(r.figures.len(), 2, "no new figure: {:?}", r.events);
    let moves = t.turn_movement();
    let of = |id| moves.iter().find(|m| m.id == id).unwrap().clone();
    assert_relative_eq!(of(a).path_in, 0.0, epsilon = 1e-9);
    assert_relative_eq!(of(b).path_in, 11.5_f64.hypot(3.0), epsilon = 1e-9);
}

/// Issue 15: "otherwise it is withheld and the tracker carries the last one
/// seen". A facing withheld by the detector (None) neither clears the
/// figure's facing nor turns it, standing still or moved.
#[test]
fn a_withheld_facing_carries_the_last_one_seen() {
    let mut t = tracker();
    let r = t.update(&frame(
        0,
        vec![det(10.0, 10.0, Some(30.0), EdgeColour::Red)],
        Some(vec![]),
    ));
    let a = id_at(&r, 10.0, 10.0);
    let r = t.update(&frame(
        1,
        vec![det(10.01, 10.0, None, EdgeColour::Red)],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 10.0, 10.0), a);
    assert_relative_eq!(
        t.figure(a).unwrap().facing_deg.unwrap(),
        30.0,
        epsilon = 1e-9
    );
    t.begin_turn();
    let r = t.update(&frame(
        2,
        vec![det(14.0, 10.0, None, EdgeColour::Red)],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, 14.0, 10.0), a);
    assert_relative_eq!(
        t.figure(a).unwrap().facing_deg.unwrap(),
        30.0,
        epsilon = 1e-9
    );
    let m = t.turn_movement().into_iter().find(|m| m.id == a).unwrap();
    assert!(m.turned_deg.is_none_or(|x| x.abs() < 1e-9), "{m:?}");
}

/// A mounted detection with a measured look (features of
/// [`crate::vision::appearance::Appearance::features`]).
fn mounted(x: f64, y: f64, facing: Option<f64>, look: [f64; 5]) -> Detection {
    Detection {
        base: BaseKind::Mounted,
        appearance: Some(crate::vision::appearance::Appearance::from_features(look)),
        side: Default::default(),
        ..det(x, y, facing, EdgeColour::Green)
    }
}

/// Issue 15: "The tracker keeps every identity through hands, lifts and
/// moves ... use the base's own appearance". Rendered seed 33, seq01: two
/// green mounted figures side by side under one hand; one is put back
/// where it stood, the other moved 11 in, where the camera sees another
/// part of its horse inside the appearance rings (the looks below are the
/// detector's, frames 1 and 3). The moved look is beyond a foot base's
/// spread, but not a mounted one's: the figure put back keeps its id.
#[test]
fn a_mounted_figure_moved_far_keeps_its_id_though_its_look_changed() {
    let mut t = tracker();
    let (a_at, b_at) = ((33.82, 1.29), (33.29, 2.45));
    let r = t.update(&frame(
        0,
        vec![
            mounted(
                a_at.0,
                a_at.1,
                Some(208.0),
                [0.11, -0.09, 0.31, -0.44, -0.66],
            ),
            mounted(
                b_at.0,
                b_at.1,
                Some(212.0),
                [0.11, -0.13, 0.08, -0.36, -0.59],
            ),
        ],
        Some(vec![]),
    ));
    let a = id_at(&r, a_at.0, a_at.1);
    let b = id_at(&r, b_at.0, b_at.1);
    let over_both = OccludedRegion::Disc {
        center_in_table: Point2::new(30.0, 2.0),
        radius_in: 5.0,
    };
    let r = t.update(&frame(1, vec![], Some(vec![over_both])));
    assert_eq!(state_of(&r, a), FigureState::Held);
    assert_eq!(state_of(&r, b), FigureState::Held);
    let moved_to = (22.80, 4.04);
    let r = t.update(&frame(
        2,
        vec![
            mounted(
                moved_to.0,
                moved_to.1,
                Some(211.0),
                [0.48, -0.24, -0.15, -0.41, -0.59],
            ),
            mounted(33.33, 2.47, None, [0.15, -0.15, 0.04, -0.31, -0.51]),
        ],
        Some(vec![]),
    ));
    assert_eq!(id_at(&r, b_at.0, b_at.1), b, "{:?}", r.events);
    assert_eq!(id_at(&r, moved_to.0, moved_to.1), a, "{:?}", r.events);
}

/// `d` with a measured look (features of
/// [`crate::vision::appearance::Appearance::features`]).
fn looking(d: Detection, look: [f64; 5]) -> Detection {
    Detection {
        appearance: Some(crate::vision::appearance::Appearance::from_features(look)),
        side: Default::default(),
        ..d
    }
}

/// Issue 15: "The tracker keeps every identity through hands, lifts and
/// moves of figures with no seen facing". Rendered seed 105, seq01, photos
/// 4 and 5: white foot figure A is carried 9.8 in between two photos with
/// no hand in either, and its groundwork reads 0.3 brighter against the
/// band where it lands (5 sigmas: beyond the appearance gate). The looks
/// and places are the detector's. A keeps its id, and its move is counted;
/// no figure is taken off and none is new.
#[test]
fn a_figure_carried_off_between_photos_keeps_its_id_though_its_look_changed() {
    let mut t = tracker();
    let white = |x, y, look| looking(det(x, y, None, EdgeColour::White), look);
    let neighbours = || {
        vec![
            white(29.62, 11.05, [0.09, -0.22, -0.18, 0.0, -0.02]),
            white(30.15, 13.02, [0.13, -0.27, -0.46, 0.01, -0.03]),
        ]
    };
    let mut first = neighbours();
    first.push(white(29.98, 12.02, [0.18, -0.24, -1.1, 0.0, -0.04]));
    let r = t.update(&frame(0, first.clone(), Some(vec![])));
    let a = id_at(&r, 29.98, 12.02);
    t.update(&frame(1, first, Some(vec![])));
    t.begin_turn();
    let to = (20.98, 8.08);
    for (i, look) in [
        (2, [0.16, -0.09, -0.79, 0.0, -0.04]),
        (3, [0.18, -0.13, -0.83, 0.0, -0.04]),
    ] {
        let mut dets = neighbours();
        dets.push(white(to.0, to.1, look));
        let r = t.update(&frame(i, dets, Some(vec![])));
        assert!(
            r.events.iter().all(|e| !matches!(
                e.kind,
                TrackEventKind::Removed | TrackEventKind::Placed { .. }
            )),
            "frame {i}: {:?}",
            r.events
        );
        if i == 3 {
            assert_eq!(id_at(&r, to.0, to.1), a, "{:?}", r.figures);
            assert_eq!(kinds_of(&r, a), ["moved"]);
            assert_eq!(r.figures.len(), 3, "no new figure: {:?}", r.figures);
        }
    }
    let m = t.turn_movement().into_iter().find(|m| m.id == a).unwrap();
    assert_relative_eq!(m.path_in, 9.0_f64.hypot(3.94), epsilon = 0.01);
}

/// Rendered seed 106, seq01, photos 5 to 8: red foot figure A stood
/// half-hidden behind a building's corner, so the look it was learnt with
/// holds the building. A hand lifts it; it is put down 4.6 in away in plain
/// view, where it looks itself (15 nats from the learnt look: beyond the
/// gate). A is placed there under its own id.
#[test]
fn a_figure_lifted_from_behind_a_building_is_placed_under_its_own_id() {
    let mut t = tracker();
    let red = |x, y, look| looking(det(x, y, None, EdgeColour::Red), look);
    let other = || red(11.65, 27.18, [0.18, -0.11, 0.09, 0.87, -0.04]);
    let behind = [0.36, -0.01, 0.16, 0.88, -0.13];
    let r = t.update(&frame(
        0,
        vec![red(14.18, 28.64, behind), other()],
        Some(vec![]),
    ));
    let a = id_at(&r, 14.18, 28.64);
    t.update(&frame(
        1,
        vec![red(14.19, 28.65, behind), other()],
        Some(vec![]),
    ));
    let r = t.update(&frame(2, vec![other()], Some(vec![hand(14.5, 29.0)])));
    assert_eq!(state_of(&r, a), FigureState::Held);
    let to = (17.71, 32.36);
    let mut last = r;
    for (i, look) in [
        (3, [0.21, 0.02, 0.43, 1.19, 0.04]),
        (4, [0.16, -0.03, 0.56, 1.08, 0.02]),
    ] {
        last = t.update(&frame(
            i,
            vec![red(to.0, to.1, look), other()],
            Some(vec![]),
        ));
        assert!(
            !last
                .events
                .iter()
                .any(|e| matches!(e.kind, TrackEventKind::Removed)),
            "{:?}",
            last.events
        );
    }
    assert_eq!(id_at(&last, to.0, to.1), a, "{:?}", last.figures);
    assert_eq!(kinds_of(&last, a), ["placed"]);
    assert_eq!(last.figures.len(), 2, "no new figure: {:?}", last.figures);
}

/// Two like figures vanish from plain view and one like figure turns up
/// between them: either may have moved there. It is given to one, and the
/// two are flagged for the player rather than guessed silently.
#[test]
fn a_figure_found_again_that_two_missing_figures_could_be_is_asked_about() {
    let mut t = tracker();
    let blue = |x, y| det(x, y, None, EdgeColour::Blue);
    let start = vec![blue(10.0, 10.0), blue(30.0, 10.0), blue(20.0, 40.0)];
    let r = t.update(&frame(0, start.clone(), Some(vec![])));
    let (a, b) = (id_at(&r, 10.0, 10.0), id_at(&r, 30.0, 10.0));
    t.update(&frame(1, start, Some(vec![])));
    // Both gone; a figure 13.5 in from each (beyond one longest move).
    let dets = vec![blue(20.0, 19.0), blue(20.0, 40.0)];
    t.update(&frame(2, dets.clone(), Some(vec![])));
    let r = t.update(&frame(3, dets, Some(vec![])));
    let found = id_at(&r, 20.0, 19.0);
    assert!(found == a || found == b, "{:?}", r.figures);
    let other = if found == a { b } else { a };
    assert_eq!(
        kinds_of(&r, found),
        ["moved", "ambiguous"],
        "{:?}",
        r.events
    );
    assert_eq!(
        r.figures
            .iter()
            .find(|f| f.id == found)
            .unwrap()
            .ambiguous_with,
        Some(other)
    );
}

/// Beyond two longest moves a figure that turns up is a new one, and the
/// figure missing in plain view is taken off once settled.
#[test]
fn a_figure_turning_up_beyond_two_longest_moves_is_a_new_figure() {
    let mut t = tracker();
    let green = |x, y| det(x, y, None, EdgeColour::Green);
    let r = t.update(&frame(0, vec![green(5.0, 5.0)], Some(vec![])));
    let a = id_at(&r, 5.0, 5.0);
    t.update(&frame(1, vec![green(5.0, 5.0)], Some(vec![])));
    t.update(&frame(2, vec![green(35.0, 5.0)], Some(vec![])));
    let r = t.update(&frame(3, vec![green(35.0, 5.0)], Some(vec![])));
    assert_ne!(id_at(&r, 35.0, 5.0), a);
    assert_eq!(state_of(&r, a), FigureState::Removed);
}

/// Rendered seed 104, seq01, photos 7, 5, 3, 1 (every other, reversed): a
/// figure first seen in one photo is under a hand in the next, and seen
/// again where it stood in the one after. A hand hiding it is no sign that
/// it was a false detection: it is confirmed when seen again.
#[test]
fn a_new_figure_hidden_by_a_hand_before_it_is_confirmed_is_not_forgotten() {
    let mut t = tracker();
    let blue = |x, y| det(x, y, None, EdgeColour::Blue);
    t.update(&frame(0, vec![blue(5.0, 5.0)], Some(vec![])));
    let r = t.update(&frame(
        1,
        vec![blue(5.0, 5.0), blue(18.4, 16.4)],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 1, "not confirmed yet");
    t.update(&frame(
        2,
        vec![blue(5.0, 5.0)],
        Some(vec![hand(19.0, 16.0)]),
    ));
    let r = t.update(&frame(
        3,
        vec![blue(5.0, 5.0), blue(18.41, 16.38)],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 2, "{:?}", r.figures);
    let new = id_at(&r, 18.4, 16.4);
    assert_eq!(kinds_of(&r, new), ["placed"]);
    // A false detection that vanishes from plain view is still dropped.
    t.update(&frame(
        4,
        vec![blue(5.0, 5.0), blue(18.41, 16.38), blue(30.0, 30.0)],
        Some(vec![]),
    ));
    let r = t.update(&frame(
        5,
        vec![blue(5.0, 5.0), blue(18.41, 16.38)],
        Some(vec![]),
    ));
    let r2 = t.update(&frame(
        6,
        vec![blue(5.0, 5.0), blue(18.41, 16.38), blue(30.0, 30.0)],
        Some(vec![]),
    ));
    assert_eq!(r.figures.len(), 2);
    assert_eq!(
        r2.figures.len(),
        2,
        "seen in two frames, but not in a row: {:?}",
        r2.figures
    );
}
