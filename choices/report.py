"""The 2-choice report and the cue report as text tables, for the command and the demo."""


def cue_table(report, top=10):
    lines = [f"{report.instances} instances; imbalance (mean |productivity - {report.baseline:.3f}| over all "
             f"applications) {report.imbalance:.3f}",
             f"{'token':<14} {'applicable':>10} {'coverage':>9} {'productivity':>12}"]
    lines += [f"{cue.token:<14} {cue.applicable:>10} {cue.coverage:>9.1%} {cue.productivity:>12.1%}"
              for cue in report.strongest(top)]
    return "\n".join(lines)


def report_table(found):
    def number(value):
        return "-" if value is None else f"{value:.3f}"

    lines = [f"batch {found['batch']}: {found['workers']} workers",
             f"{'subset':<10} {'items':>6} {'votes':>6} {'accuracy':>9} {'ties':>5} {'Fleiss kappa [95%]':>26} "
             f"{'alpha':>7}"]
    for subset in ("original", "mirrored", "all"):
        row = found[subset]
        kappa = row["fleiss"]
        lines.append(f"{subset:<10} {row['items']:>6} {row['votes']:>6} "
                     f"{'-' if row['accuracy'] is None else format(row['accuracy'], '.1%'):>9} {row['ties']:>5} "
                     f"{number(kappa['value']):>8} [{number(kappa['low'])}, {number(kappa['high'])}]".ljust(60)
                     + f" {number(row['alpha']['value']):>7}")
    workers = found.get("by_worker") or []
    if workers:
        lines.append("workers against the intended answers, lowest first: " + ", ".join(
            f"{row['worker']} {row['accuracy']:.0%} of {row['votes']}" for row in workers))
    return "\n".join(lines)
