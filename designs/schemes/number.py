"""slider and number: a number in the scheme's range (a slider's on its step)."""

from designs.schemes.base import AnswerProblem, SchemeType, number, scheme_type


class Numeric(SchemeType):
    level = "interval"

    def bounds(self, scheme):
        raise NotImplementedError

    def read(self, scheme, fields, record):
        value = fields.get()
        if not value:
            return None
        found = number(value, "the answer")
        low, high, step = self.bounds(scheme)
        if (low is not None and found < low) or (high is not None and found > high):
            raise AnswerProblem(f"{found:g} is outside {_shown(low)} to {_shown(high)}")
        if step and low is not None and abs(round((found - low) / step) * step - (found - low)) > 1e-9:
            raise AnswerProblem(f"{found:g} is not on a step of {step:g} from {low:g}")
        return found


@scheme_type
class Slider(Numeric):
    name = "slider"

    def bounds(self, scheme):
        return scheme.min_value, scheme.max_value, scheme.step


@scheme_type
class Number(Numeric):
    name = "number"

    def bounds(self, scheme):
        return scheme.min, scheme.max, scheme.step


def _shown(bound):
    return "…" if bound is None else f"{bound:g}"
