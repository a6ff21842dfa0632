// Fetches each URL of argv with undici's fetch through EnvHttpProxyAgent, the
// dispatcher Node.js installs for fetch with NODE_USE_ENV_PROXY=1, and prints
// each body, or "error". It reads the proxy variables as that agent does.
'use strict'

const { EnvHttpProxyAgent, fetch, setGlobalDispatcher } = require('undici')

process.removeAllListeners('warning') // "EnvHttpProxyAgent is experimental"
setGlobalDispatcher(new EnvHttpProxyAgent())

async function main () {
  for (const url of process.argv.slice(2)) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
      process.stdout.write(await response.text())
    } catch (err) {
      console.log('error')
      console.error(url, err.cause || err)
    }
  }
}

main().then(() => process.exit(0))
