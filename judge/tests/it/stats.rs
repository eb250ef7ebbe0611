//! The report statistics against independently computed reference values.
//!
//! How the expected values were computed (Python 3, scipy 1.17.1,
//! statsmodels 0.15.0; the script is reproduced in RELIABILITY.md):
//! - Wilson: `statsmodels.stats.proportion.proportion_confint(k, n,
//!   alpha=0.05, method="wilson")`.
//! - pass@k and pass^k: exact rational arithmetic with `fractions.Fraction`
//!   and `math.comb` (`1 − C(n−c,k)/C(n,k)` and `C(c,k)/C(n,k)`), then
//!   converted to a float.
//! - McNemar / sign test: `statsmodels.stats.contingency_tables.mcnemar(
//!   [[0, w], [b, 0]], exact=True).pvalue`, cross-checked against
//!   `scipy.stats.binomtest(min(w, b), w + b, 0.5).pvalue`.
//! - Newcombe's paired interval: no package we could reach implements it,
//!   so a separate Python transcription of Newcombe (1998) method 10 over
//!   statsmodels' Wilson limits; the properties test below checks what the
//!   method promises besides.
//! - t interval: `scipy.stats.t.ppf(0.975, m − 1)` × the sample standard
//!   deviation (`numpy.std(ddof=1)`) / √m around the mean.
//! - Cohen's kappa, its standard error and interval:
//!   `statsmodels.stats.inter_rater.cohens_kappa(table)` (`.kappa`,
//!   `.std_kappa`, `.kappa_low`, `.kappa_upp`: Fleiss, Cohen & Everitt's
//!   large-sample variance, as ours).
//! - Fleiss' kappa: `statsmodels.stats.inter_rater.fleiss_kappa(counts,
//!   method="fleiss")`.

use tribunal_judge::internal::report::stats::{
    IntervalMethod, PairedItem, PairedMethod, cohen_kappa, fleiss_kappa, paired_test, pass_at_k,
    pass_hat_k, sign_test_p, wilson,
};

const TOL: f64 = 1e-9;

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= TOL,
        "{what}: got {got:.15}, want {want:.15}"
    );
}

#[test]
fn wilson_matches_statsmodels() {
    let cases = [
        (0, 15, 0.0, 0.20388330103584867),
        (13, 15, 0.6211801716767763, 0.9626387408969347),
        (15, 15, 0.7961166989641513, 1.0),
        (1, 2, 0.09453120573423068, 0.9054687942657693),
        (7, 20, 0.18119182410108203, 0.5671457233147638),
        (500, 1000, 0.4690696003681042, 0.5309303996318958),
        (0, 1, 0.0, 0.7934506856227627),
    ];
    for (k, n, low, high) in cases {
        let ci = wilson(k, n).unwrap_or_else(|| panic!("no interval for {k}/{n}"));
        close(&format!("wilson({k}, {n}).low"), ci.low, low);
        close(&format!("wilson({k}, {n}).high"), ci.high, high);
    }
    assert_eq!(wilson(0, 0), None, "no runs, no interval");
}

#[test]
fn pass_at_k_and_pass_hat_k_match_exact_fractions() {
    let cases = [
        (10, 3, 1, 0.3, 0.3),
        (10, 3, 2, 0.5333333333333333, 0.06666666666666667),
        (10, 3, 5, 0.9166666666666666, 0.0),
        (10, 3, 8, 1.0, 0.0),
        (5, 0, 1, 0.0, 0.0),
        (5, 5, 3, 1.0, 1.0),
        (200, 17, 10, 0.5974489015799118, 8.662418719590339e-13),
    ];
    for (n, c, k, at, hat) in cases {
        let got_at = pass_at_k(n, c, k).unwrap_or_else(|| panic!("pass@{k} of {c}/{n}"));
        let got_hat = pass_hat_k(n, c, k).unwrap_or_else(|| panic!("pass^{k} of {c}/{n}"));
        close(&format!("pass@{k} of {c}/{n}"), got_at, at);
        close(&format!("pass^{k} of {c}/{n}"), got_hat, hat);
    }
    // The estimators need n ≥ k ≥ 1.
    assert_eq!(pass_at_k(3, 1, 4), None);
    assert_eq!(pass_hat_k(3, 1, 4), None);
    assert_eq!(pass_at_k(3, 1, 0), None);
}

#[test]
fn sign_test_matches_statsmodels_mcnemar_exact() {
    let cases = [
        (1, 0, 1.0),
        (12, 0, 0.00048828125),
        (5, 3, 0.7265625),
        (9, 2, 0.0654296875),
        (30, 12, 0.007915897334896727),
        (0, 0, 1.0),
        (4, 4, 1.0),
        (600, 540, 0.08051743870793819),
    ];
    for (worse, better, p) in cases {
        close(
            &format!("p({worse} worse, {better} better)"),
            sign_test_p(worse, better),
            p,
        );
        // Two-sided: the same either way round.
        close("symmetric", sign_test_p(better, worse), p);
    }
}

/// `both` items passed on both sides, `worse` only in the baseline,
/// `better` only in the new run, `neither` on neither; one run each.
fn table(both: usize, worse: usize, better: usize, neither: usize) -> Vec<PairedItem> {
    let item = |base_pass, new_pass| PairedItem {
        runs: 1,
        base_pass,
        new_pass,
    };
    let mut items = Vec::new();
    items.extend(std::iter::repeat_n(item(1, 1), both));
    items.extend(std::iter::repeat_n(item(1, 0), worse));
    items.extend(std::iter::repeat_n(item(0, 1), better));
    items.extend(std::iter::repeat_n(item(0, 0), neither));
    items
}

#[test]
fn one_run_per_item_is_mcnemar_with_newcombes_interval() {
    let cases = [
        (12, 9, 2, 21, -0.2891566595882724, -0.01821022624359192),
        (19, 1, 0, 0, -0.23613119344674227, 0.11628906100603151),
        (8, 12, 0, 0, -0.781193467627183, -0.33258875795053366),
        (10, 0, 0, 10, 0.0, 0.0),
        (5, 3, 4, 8, -0.19253216767597267, 0.28327948560351796),
    ];
    for (both, worse, better, neither, low, high) in cases {
        let t = paired_test(&table(both, worse, better, neither));
        let what = format!("table ({both}, {worse}, {better}, {neither})");
        assert_eq!(t.method, PairedMethod::McnemarExact, "{what}");
        assert_eq!(t.interval_method, IntervalMethod::NewcombePaired, "{what}");
        assert_eq!(
            (t.items, t.worse, t.better),
            (both + worse + better + neither, worse, better),
            "{what}"
        );
        let n = (both + worse + better + neither) as f64;
        close(
            &format!("{what} delta"),
            t.delta,
            (better as f64 - worse as f64) / n,
        );
        close(
            &format!("{what} base"),
            t.base_rate,
            (both + worse) as f64 / n,
        );
        close(&format!("{what} p"), t.p_value, sign_test_p(worse, better));
        let ci = t.delta_ci.unwrap_or_else(|| panic!("{what}: no interval"));
        close(&format!("{what} low"), ci.low, low);
        close(&format!("{what} high"), ci.high, high);
    }
}

#[test]
fn newcombes_interval_holds_its_promises() {
    for both in 0..6 {
        for worse in 0..6 {
            for better in 0..6 {
                for neither in 0..4 {
                    if both + worse + better + neither == 0 {
                        continue;
                    }
                    let t = paired_test(&table(both, worse, better, neither));
                    let ci = t.delta_ci.expect("an interval for a non-empty table");
                    let what = format!("({both}, {worse}, {better}, {neither}): {ci:?}");
                    assert!(-1.0 <= ci.low && ci.high <= 1.0, "inside [-1, 1] {what}");
                    assert!(
                        ci.low <= t.delta + 1e-12 && t.delta <= ci.high + 1e-12,
                        "contains the estimate {what}"
                    );
                    // Swapping the sides negates the interval.
                    let s = paired_test(&table(both, better, worse, neither));
                    let sci = s.delta_ci.expect("swapped interval");
                    close(&format!("swap low {what}"), sci.low, -ci.high);
                    close(&format!("swap high {what}"), sci.high, -ci.low);
                }
            }
        }
    }
}

#[test]
fn repeats_use_the_sign_test_on_item_rates_with_a_t_interval() {
    // Five items of five runs each; new − base per item:
    // −0.2, 0.0, +0.4, −0.6, +0.2.
    let item = |base_pass, new_pass| PairedItem {
        runs: 5,
        base_pass,
        new_pass,
    };
    let items = [item(3, 2), item(5, 5), item(1, 3), item(4, 1), item(0, 1)];
    let t = paired_test(&items);
    assert_eq!(t.method, PairedMethod::SignTestItemRates);
    assert_eq!(t.interval_method, IntervalMethod::TMeanItemDifferences);
    assert_eq!((t.items, t.worse, t.better), (5, 2, 2));
    close("p", t.p_value, 1.0);
    close("base", t.base_rate, 13.0 / 25.0);
    close("new", t.new_rate, 12.0 / 25.0);
    close("delta", t.delta, -0.04);
    let ci = t.delta_ci.expect("five items give an interval");
    close("low", ci.low, -0.5176776776199961);
    close("high", ci.high, 0.4376776776199961);

    // Clamped to [-1, 1]: the unclamped interval is −1.7676 … +1.1009.
    let items = [item(2, 2), item(4, 4), item(5, 0)];
    let ci = paired_test(&items).delta_ci.expect("three items");
    assert_eq!((ci.low, ci.high), (-1.0, 1.0));
    // One item: no spread, no interval.
    assert_eq!(paired_test(&[item(2, 3)]).delta_ci, None);
}

#[test]
fn a_significant_regression_needs_more_worse_than_better_and_a_small_p() {
    // 12 of 20 items flipped PASS → FAIL, none the other way.
    let t = paired_test(&table(8, 12, 0, 0));
    assert!(t.significant_regression(0.05), "{t:?}");
    // One flip is noise.
    let t = paired_test(&table(19, 1, 0, 0));
    assert!(!t.significant_regression(0.05), "{t:?}");
    // As many fixed as broken: not a regression however small p is.
    let t = paired_test(&table(0, 30, 30, 0));
    assert!(!t.significant_regression(1.0), "{t:?}");
    // A significant improvement is not a regression.
    let t = paired_test(&table(8, 0, 12, 0));
    assert!(t.p_value < 0.05 && !t.significant_regression(0.05), "{t:?}");
    // alpha is a strict bound: p = 0.00048828125 is not below itself.
    let t = paired_test(&table(8, 12, 0, 0));
    assert!(!t.significant_regression(0.00048828125), "{t:?}");
}

#[test]
fn cohen_kappa_matches_statsmodels() {
    // (table, kappa, standard error, interval low, interval high)
    type Case = (Vec<Vec<u64>>, f64, f64, f64, f64);
    let cases: [Case; 5] = [
        (
            vec![vec![20, 5], vec![10, 15]],
            0.3999999999999999,
            0.12699606293110033,
            0.151092290476661,
            0.6489077095233389,
        ),
        (
            vec![vec![21, 0], vec![4, 17]],
            0.8095238095238095,
            0.0889309689747672,
            0.6352223132230168,
            0.9838253058246023,
        ),
        (
            vec![vec![20, 1, 0], vec![3, 18, 0], vec![0, 0, 0]],
            0.8095238095238095,
            0.09017772563241166,
            0.6327787150765481,
            0.9862689039710709,
        ),
        (
            vec![vec![18, 2, 1], vec![3, 16, 2], vec![0, 0, 0]],
            0.6444444444444445,
            0.10574821779219098,
            0.43718174614245237,
            0.8517071427464367,
        ),
        (
            vec![vec![19, 1, 1], vec![2, 17, 2], vec![0, 0, 0]],
            0.7333333333333333,
            0.09401781428172198,
            0.5490618034359827,
            0.9176048632306839,
        ),
    ];
    for (table, kappa, se, low, high) in cases {
        let k = cohen_kappa(&table).unwrap();
        let what = format!("{table:?}");
        close(&format!("{what} kappa"), k.value, kappa);
        close(&format!("{what} se"), k.std_error, se);
        let ci = k.ci.unwrap();
        close(&format!("{what} low"), ci.low, low);
        close(&format!("{what} high"), ci.high, high);
    }
    // Perfect agreement: kappa 1, no spread to build an interval from.
    let perfect = cohen_kappa(&[vec![21, 0], vec![0, 21]]).unwrap();
    assert_eq!((perfect.value, perfect.ci), (1.0, None));
    // Both raters used one class for everything: 0/0, no kappa.
    assert_eq!(cohen_kappa(&[vec![42, 0], vec![0, 0]]), None);
    assert_eq!(cohen_kappa(&[vec![1, 2]]), None);
    assert_eq!(cohen_kappa(&[]), None);
}

#[test]
fn fleiss_kappa_matches_statsmodels() {
    let a = [vec![3, 0], vec![2, 1], vec![0, 3], vec![1, 2]];
    close("fleiss a", fleiss_kappa(&a).unwrap(), 0.33333333333333326);
    let b = [
        vec![0, 3, 0],
        vec![3, 0, 0],
        vec![1, 1, 1],
        vec![2, 0, 1],
        vec![0, 2, 1],
    ];
    close("fleiss b", fleiss_kappa(&b).unwrap(), 0.27083333333333337);
    // Items rated once say nothing about agreement; one class throughout
    // is 0/0.
    assert_eq!(fleiss_kappa(&[vec![1, 0], vec![0, 1]]), None);
    assert_eq!(fleiss_kappa(&[vec![3, 0], vec![2, 0]]), None);
}
