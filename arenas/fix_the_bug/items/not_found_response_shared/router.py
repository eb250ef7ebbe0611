"""A tiny WSGI-like router, after sinatra/mustermann's Mustermann::Router:
exact paths per verb, and a fallback app for everything else."""

NOT_FOUND = (404, {"content-type": "text/plain", "x-cascade": "pass"}, ["Not found"])
VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE")


class Router:
    def __init__(self, fallback=None):
        self.routes = {verb: {} for verb in VERBS}
        self.fallback = fallback or (lambda env: NOT_FOUND)

    def call(self, env):
        """The response: (status, headers, body)."""
        verb = env.get("REQUEST_METHOD", "GET")
        if verb == "HEAD":
            verb = "GET"
        target = self.routes.get(verb, {}).get(env.get("PATH_INFO", "/"))
        return target(env) if target else self.fallback(env)

    def route(self, verb, path, target):
        if verb not in VERBS:
            raise ValueError(f"unknown verb: {verb}")
        self.routes[verb][path] = target
