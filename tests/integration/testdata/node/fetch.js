// Requests each URL of the arguments with the runtime's own fetch, as an
// application would, and prints each body ("direct" or "proxy", from the echo
// server) or "error". Deno and Bun both run it: each sends a plain-HTTP request
// through the proxy as a GET, to which tinyproxy adds the Via header.
const urls = typeof Deno !== 'undefined' ? Deno.args : process.argv.slice(2)
for (const url of urls) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
    console.log((await response.text()).trim())
  } catch {
    console.log('error')
  }
}
