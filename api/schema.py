"""The OpenAPI schema says every status code the API answers with: drf-spectacular documents the
successful answer; the errors every operation can give are added here, each with its body's shape."""

from drf_spectacular.openapi import AutoSchema

DETAIL = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
# A refused input: {"detail": why} for a refused action, or {parameter or field: [why, ...]}.
REFUSED = {"type": "object", "properties": {"detail": {"type": "string"}},
           "additionalProperties": {"type": "array", "items": {"type": "string"}}, "minProperties": 1}


class ErrorsAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        errors = {"401": ("no token, or a token that is not valid", DETAIL),
                  "403": ("the token's user does not have the role this needs", DETAIL)}
        if "{" in self.path:
            errors["404"] = ("no such object", DETAIL)
        if self.method != "GET" or self._get_pagination_parameters() or self.get_override_parameters():
            errors["400"] = ("a query parameter or a field that cannot be used, or an action refused; the body "
                             "names which and why", REFUSED)
        for code, (description, schema) in errors.items():
            responses.setdefault(code, {"description": description, "content": {"application/json": {
                "schema": schema}}})
        return responses
