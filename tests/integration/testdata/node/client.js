// Requests each URL of argv[4...] with the API argv[2] names, as an application
// run with NODE_USE_ENV_PROXY=1 would: "http" is http.request (the http module's
// own proxy support), "fetch" the built-in fetch (undici's EnvHttpProxyAgent).
// Prints each body, or "error". fetch tunnels even plain HTTP through CONNECT,
// so the proxy adds no Via header the echo server could report: a request that
// answered "direct" while the proxy's log (argv[3]) grew went through the proxy,
// and is printed "proxy". No module of its own: it runs on the node binary of
// each LTS line that package-lock.json pins.
'use strict'

const fs = require('node:fs')
const http = require('node:http')

// requests is how many requests the proxy's log records.
function requests (log) {
  return fs.readFileSync(log, 'utf8').split('Request (file descriptor').length - 1
}

function viaHTTP (url) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { timeout: 5000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve(body))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end()
  })
}

async function viaFetch (url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  return response.text()
}

async function main () {
  const get = { http: viaHTTP, fetch: viaFetch }[process.argv[2]]
  if (!get) throw new Error(`unknown API ${process.argv[2]}: http or fetch`)
  const log = process.argv[3]
  for (const url of process.argv.slice(4)) {
    try {
      const before = requests(log)
      const body = await get(url)
      process.stdout.write(body.trim() === 'direct' && requests(log) > before ? 'proxy\n' : body)
    } catch (err) {
      console.log('error')
      console.error(url, err.cause || err)
    }
  }
}

main().then(() => process.exit(0))
