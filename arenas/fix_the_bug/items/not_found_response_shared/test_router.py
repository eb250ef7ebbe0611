import unittest

from router import Router


def env(method="GET", path="/"):
    return {"REQUEST_METHOD": method, "PATH_INFO": path}


class RouterTest(unittest.TestCase):
    def router(self):
        r = Router()
        r.route("GET", "/hello", lambda e: (200, {}, ["Hello!"]))
        return r

    def test_routes_by_verb_and_path(self):
        self.assertEqual(self.router().call(env(path="/hello"))[2], ["Hello!"])
        self.assertEqual(self.router().call(env(method="HEAD", path="/hello"))[0], 200)

    def test_default_fallback(self):
        status, headers, _ = self.router().call(env(path="/missing"))
        self.assertEqual(status, 404)
        self.assertEqual(headers["x-cascade"], "pass")

    def test_default_fallback_can_be_modified_by_middleware(self):
        _, headers, body = self.router().call(env(path="/missing"))
        headers["x-cascade"] = "stop"
        body.append("!")
        _, headers, body = self.router().call(env(path="/other"))
        self.assertEqual(headers["x-cascade"], "pass")
        self.assertEqual(body, ["Not found"])
