"""The 2-choice report and the cue report as text tables, for the command and the demo."""


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
    trusted = found.get("trusted")
    if trusted and trusted["left_out"]:
        kappa = trusted["fleiss"]
        lines.append(f"without {', '.join(trusted['left_out'])} (under {trusted['threshold']:.0%} against the intended "
                     f"answers): accuracy {trusted['accuracy']:.1%}, Fleiss' kappa {number(kappa['value'])} "
                     f"[{number(kappa['low'])}, {number(kappa['high'])}] over {kappa['items']} items")
    workers = found.get("by_worker") or []
    if workers:
        lines.append("workers against the intended answers, lowest first: " + ", ".join(
            f"{row['worker']} {row['accuracy']:.0%} of {row['votes']}" for row in workers))
    return "\n".join(lines)
