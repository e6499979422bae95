/**
 * The inbox's only script, served as /assets/passkeys.js (CSP `script-src 'self'`): registers a
 * passkey (button `#register-passkey`) and, on a form marked `data-sign`, makes the WebAuthn
 * assertion over the decision record's digest before the form is sent. Plain
 * `navigator.credentials`, base64url by hand.
 */
export const passkeyScript = String.raw`"use strict";
(function () {
  var b64u = {
    enc: function (buf) {
      var s = "", bytes = new Uint8Array(buf);
      for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
      return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    },
    dec: function (str) {
      var s = atob(str.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((str.length + 3) % 4));
      var out = new Uint8Array(s.length);
      for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
      return out;
    },
  };
  function say(text) {
    var box = document.getElementById("passkey-status");
    if (box) box.textContent = text;
  }
  async function postJson(url, body, csrf) {
    var headers = { "content-type": "application/json" };
    if (csrf) headers["x-csrf-token"] = csrf;
    var res = await fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin" });
    var json = await res.json();
    if (!res.ok) throw new Error((json.error && json.error.message) || "HTTP " + res.status);
    return json;
  }
  async function register(button) {
    var csrf = button.getAttribute("data-csrf");
    try {
      var start = await postJson("/api/passkeys/options", {}, csrf);
      var o = start.options;
      var cred = await navigator.credentials.create({
        publicKey: {
          challenge: b64u.dec(o.challenge),
          rp: o.rp,
          user: { id: b64u.dec(o.user.id), name: o.user.name, displayName: o.user.displayName },
          pubKeyCredParams: o.pubKeyCredParams,
          timeout: o.timeout,
          attestation: o.attestation,
          authenticatorSelection: o.authenticatorSelection,
          excludeCredentials: (o.excludeCredentials || []).map(function (c) { return { type: "public-key", id: b64u.dec(c.id) }; }),
        },
      });
      var response = {
        id: cred.id,
        rawId: b64u.enc(cred.rawId),
        type: cred.type,
        response: {
          clientDataJSON: b64u.enc(cred.response.clientDataJSON),
          attestationObject: b64u.enc(cred.response.attestationObject),
          transports: cred.response.getTransports ? cred.response.getTransports() : [],
        },
        clientExtensionResults: cred.getClientExtensionResults(),
      };
      await postJson("/api/passkeys", { token: start.token, response: response }, csrf);
      say("Passkey registered.");
      location.reload();
    } catch (err) {
      say("Passkey not registered: " + err.message);
    }
  }
  async function sign(form) {
    var data = new FormData(form);
    var body = { decision: data.get("decision") };
    var edited = data.get("edited_args");
    if (typeof edited === "string" && edited !== "") body.edited_args = JSON.parse(edited);
    var start = await postJson(form.getAttribute("data-sign"), body, null);
    var cred = await navigator.credentials.get({
      publicKey: {
        challenge: b64u.dec(start.challenge),
        rpId: start.rp_id,
        allowCredentials: start.credential_ids.map(function (id) { return { type: "public-key", id: b64u.dec(id) }; }),
        userVerification: "preferred",
        timeout: 60000,
      },
    });
    var r = cred.response;
    var assertion = {
      id: cred.id,
      rawId: b64u.enc(cred.rawId),
      type: cred.type,
      response: {
        clientDataJSON: b64u.enc(r.clientDataJSON),
        authenticatorData: b64u.enc(r.authenticatorData),
        signature: b64u.enc(r.signature),
        userHandle: r.userHandle ? b64u.enc(r.userHandle) : undefined,
      },
      clientExtensionResults: cred.getClientExtensionResults(),
    };
    form.querySelector("input[name=assertion]").value = JSON.stringify(assertion);
    form.submit();
  }
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("register-passkey");
    if (button) button.addEventListener("click", function () { register(button); });
    document.querySelectorAll("form[data-sign]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        sign(form).catch(function (err) { say("Not signed: " + err.message); });
      });
    });
  });
})();
`;
