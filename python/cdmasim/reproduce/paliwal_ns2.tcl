# Paliwal et al.'s cdma2000 1X system (Fig. 2, Table I) in ns-2.35:
# the reference side of bench/paliwal.py and of `cdmasim reproduce paliwal
# --ns2` (python/cdmasim/reproduce/ns2.py).
#
# m BTSs x n mobiles; per mobile k = (i,j) a fixed host h_k and one
# Agent/TCP/Reno -> Agent/TCPSink (one ACK per segment) FTP transfer.
#
#   h_k --100Mb 37.5ms-- core --100Mb 37.5ms-- bsc
#   bsc ==B_cum: m*n*38.4 kb/s, RED 300 pkt (or DropTail 5 pkt)== ...
#   topo=flat (default, the same graph as cdmasim's cell):
#       bsc ==B_cum, 37.5 ms==> bts --R_k, 37.5 ms, DropTail "unbounded"--> ms_k
#       ms_k --9.6 kb/s, 75 ms--> bsc                          (reverse FCH)
#   topo=bts (Fig. 2 literally, one node per BTS):
#       bsc ==B_cum, 0 ms==> bscout --100Mb 37.5ms--> bts_i --R_k, 37.5ms--> ms_k
#       ms_k --9.6 kb/s 37.5ms--> bts_i --100Mb 37.5ms--> bscout --100Mb 0ms--> bsc
#
# R_k = 9.6 kb/s (FCH) + SCH (16X: 153.6 kb/s). SCH plans:
#   sch=at     every mobile switches to 163.2 kb/s at `at` (Sec. IV-B)
#   sch=bursts finite bursts (Sec. IV-E) from burst_start (the mobiles run
#              on the FCH alone before it): cycle c of mobile k of N
#              switches up at burst_start + c*(T_B+T_D) + x*spread*T_B
#              and down at burst_start + c*(T_B+T_D) + T_B + y*spread*T_D,
#              with order=sequential (Sec. IV-D/E) x = y = k/N, every
#              cycle; with order=random u, v ~ U[0,1) drawn per mobile and
#              cycle as the run goes (one pending event per mobile)
#   sch=rise   mobile k switches to 163.2 kb/s at `at` + rise*k/(m*n)
#              (Sec. IV-D's rise time T_r)
#   sch=none   FCH only
# join_initial=J (J >= 0): flows J.. start join_at later than their jitter
# (Sec. IV-C: users joining instead of switching).
#
# usage: ns paliwal.tcl [key=value ...]   (defaults below)
# Prints one JSON object on stdout. trace=FILE writes an ns-2 trace of the
# B_cum link and of every BTS->MS link only (for dead periods; slows ns-2).

array set opt {
    m 10 n 10 duration 220 seed 1
    queue red topo flat
    sch bursts at 50 burst 8 gap 5 spread 0.1 rate 153600 burst_start 0 order sequential
    fch 9600 reverse 9600 delay 0.0375 wired 100e6 per_mobile 38400
    red_limit 300 red_min 20 red_max 60 red_wq 0.002 red_linterm 10
    dt_buffer 5 window 32 mss 960 iw 1 start_spread 1.0 tick 0.01
    rise 1 join_at 50 join_initial -1
    trace ""
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] < 2 || ![info exists opt([lindex $kv 0])]} {
        puts stderr "paliwal.tcl: unknown argument '$a' (keys: [lsort [array names opt]])"
        exit 2
    }
    set opt([lindex $kv 0]) [join [lrange $kv 1 end] =]
}
set m        $opt(m)
set n        $opt(n)
set N        [expr {$m * $n}]
set duration $opt(duration)
set delay    $opt(delay)
set lo       [expr {double($opt(fch))}]
set hi       [expr {double($opt(fch) + $opt(rate))}]
set bsc_bw   [expr {double($N * $opt(per_mobile))}]
set BIG      100000   ;# "unbounded" DropTail limit_ (packets)

# --- TCP (names are ns-2.35 bound variables, see tcl/lib/ns-default.tcl) ---
# packetSize_ is the TCP payload: the agent adds tcpip_base_hdr_size_ (40 B),
# so 960 gives Table I's 1000-byte IP packets (checked: B_cum's departures
# are exactly 1000 bytes per data packet, bdepartures_ / pdepartures_).
Agent/TCP set packetSize_ $opt(mss)
Agent/TCP set window_ $opt(window)      ;# 32 kB receiver buffer / 1000 B
Agent/TCP set minrto_ 1
Agent/TCP set tcpTick_ $opt(tick)       ;# ns-2's default 10 ms clock
Agent/TCP set maxcwnd_ 0
# Initial window 1 (the paper, Sec. IV-C: new users start "with an initial
# window of size one"; cdmasim's preset uses 1). ns-2.35's default is 2.
Agent/TCP set windowInit_ $opt(iw)
# Kept at ns-2.35's defaults (cdmasim's cdma2000 preset copies them):
# rtxcur_init_ 3 s, syn_ true (a 40-byte SYN first), one timed segment per
# RTT, timestamps_ false, singledup_ 1, maxrto_ 60, bugFix_ true.

# --- RED (Table I; Floyd & Jacobson's parameters, as the paper) ---
Queue/RED set thresh_ $opt(red_min)
Queue/RED set maxthresh_ $opt(red_max)
Queue/RED set q_weight_ $opt(red_wq)
Queue/RED set linterm_ $opt(red_linterm)
Queue/RED set gentle_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set mean_pktsize_ 1000   ;# idle-time decay counts 1000-byte packets
Queue/RED set wait_ true
Queue/RED set setbit_ false

set ns [new Simulator]
$defaultRNG seed $opt(seed)
set srng [new RNG]          ;# flow starts
$srng seed $opt(seed)
set rrng [new RNG]          ;# SCH schedule
$rrng seed $opt(seed)
$rrng next-substream

set core [$ns node]
set bsc  [$ns node]
$ns duplex-link $core $bsc $opt(wired) $delay DropTail
$ns queue-limit $core $bsc $BIG
$ns queue-limit $bsc $core $BIG

# B_cum: the one shared queue. ns-2's RED drops an arrival when the queue
# already holds limit_ packets, so limit_ 300 holds 300 waiting packets;
# DropTail drops when (waiting + 1) >= limit_, so 5 waiting packets (5 kB,
# the packet on the wire not counted, as in cdmasim) is limit_ 6.
if {$opt(queue) eq "red"} {
    set qkind RED
    set qlim $opt(red_limit)
} elseif {$opt(queue) eq "droptail"} {
    set qkind DropTail
    set qlim [expr {$opt(dt_buffer) + 1}]
} else {
    puts stderr "paliwal.tcl: queue must be red or droptail"
    exit 2
}
if {$opt(topo) eq "flat"} {
    set hub [$ns node]
    $ns simplex-link $bsc $hub $bsc_bw $delay $qkind
    $ns queue-limit $bsc $hub $qlim
    set bsc_link [list $bsc $hub]
    set bsc_link_delay $delay
    for {set i 0} {$i < $m} {incr i} { set bts($i) $hub }
} elseif {$opt(topo) eq "bts"} {
    set hub [$ns node]
    $ns simplex-link $bsc $hub $bsc_bw 0 $qkind
    $ns queue-limit $bsc $hub $qlim
    $ns simplex-link $hub $bsc $opt(wired) 0 DropTail
    $ns queue-limit $hub $bsc $BIG
    set bsc_link [list $bsc $hub]
    set bsc_link_delay 0
    for {set i 0} {$i < $m} {incr i} {
        set bts($i) [$ns node]
        $ns duplex-link $hub $bts($i) $opt(wired) $delay DropTail
        $ns queue-limit $hub $bts($i) $BIG
        $ns queue-limit $bts($i) $hub $BIG
    }
} else {
    puts stderr "paliwal.tcl: topo must be flat or bts"
    exit 2
}
set devnull [open /dev/null w]
set bmon [$ns monitor-queue $bsc $hub $devnull]

set traced {}
if {$opt(trace) ne ""} {
    set tf [open $opt(trace) w]
    $ns trace-queue $bsc $hub $tf
    lappend traced [list [$bsc id] [$hub id] $bsc_link_delay]
}

for {set k 0} {$k < $N} {incr k} {
    set i [expr {$k / $n}]
    set h($k)  [$ns node]
    set ms($k) [$ns node]
    $ns duplex-link $h($k) $core $opt(wired) $delay DropTail
    $ns queue-limit $h($k) $core $BIG
    $ns queue-limit $core $h($k) $BIG
    # link buffer B^dl: served at R_k, "cap. = infinity"
    $ns simplex-link $bts($i) $ms($k) $lo $delay DropTail
    $ns queue-limit $bts($i) $ms($k) $BIG
    set radio($k) [[$ns link $bts($i) $ms($k)] link]
    # reverse FCH at 9.6 kb/s; flat: straight to the BSC (d_m + d_t)
    if {$opt(topo) eq "flat"} {
        $ns simplex-link $ms($k) $bsc $opt(reverse) [expr {2 * $delay}] DropTail
        $ns queue-limit $ms($k) $bsc $BIG
    } else {
        $ns simplex-link $ms($k) $bts($i) $opt(reverse) $delay DropTail
        $ns queue-limit $ms($k) $bts($i) $BIG
    }
    if {$opt(trace) ne ""} {
        $ns trace-queue $bts($i) $ms($k) $tf
        lappend traced [list [$bts($i) id] [$ms($k) id] $delay]
    }

    set tcp($k) [new Agent/TCP/Reno]
    $tcp($k) set fid_ $k
    set sink($k) [new Agent/TCPSink]
    $ns attach-agent $h($k) $tcp($k)
    $ns attach-agent $ms($k) $sink($k)
    $ns connect $tcp($k) $sink($k)
    set ftp($k) [new Application/FTP]
    $ftp($k) attach-agent $tcp($k)
    set start($k) [$srng uniform 0 $opt(start_spread)]
    if {$opt(join_initial) >= 0 && $k >= $opt(join_initial)} {
        set start($k) [expr {$start($k) + $opt(join_at)}]
    }
    $ns at $start($k) "$ftp($k) start"
}

# --- SCH schedule: bandwidth_ of the BTS->MS LinkDelay; ns-2 computes a
# packet's transmission time when it starts sending it, so a new rate acts
# from the next packet on (cdmasim: rate_change = "next_packet"). ---
set nswitch 0
proc sch_set {k bw} {
    global radio nswitch
    $radio($k) set bandwidth_ $bw
    incr nswitch
}
if {$opt(sch) eq "at"} {
    for {set k 0} {$k < $N} {incr k} { $ns at $opt(at) "sch_set $k $hi" }
} elseif {$opt(sch) eq "bursts"} {
    set TB $opt(burst)
    set TD $opt(gap)
    set P  [expr {$TB + $TD}]
    set sp $opt(spread)
    set T0 $opt(burst_start)
    if {$opt(order) ne "sequential" && $opt(order) ne "random"} {
        puts stderr "paliwal.tcl: order must be sequential or random, not '$opt(order)'"
        exit 2
    }
    # Where mobile k switches within a rise (fall) time, as a fraction of it.
    proc place {k} {
        global opt rrng N
        if {$opt(order) eq "sequential"} { return [expr {$k / double($N)}] }
        return [$rrng uniform 0 1]
    }
    # One pending event per mobile: each switch schedules the next one.
    proc sch_up {k c} {
        global ns TB TD P sp T0 duration hi
        sch_set $k $hi
        set t [expr {$T0 + $c * $P + $TB + [place $k] * $sp * $TD}]
        if {$t < $duration} { $ns at $t "sch_down $k $c" }
    }
    proc sch_down {k c} {
        global ns TB P sp T0 duration lo
        sch_set $k $lo
        incr c
        set t [expr {$T0 + $c * $P + [place $k] * $sp * $TB}]
        if {$t < $duration} { $ns at $t "sch_up $k $c" }
    }
    for {set k 0} {$k < $N} {incr k} {
        set t [expr {$T0 + [place $k] * $sp * $TB}]
        if {$t < $duration} { $ns at $t "sch_up $k 0" }
    }
} elseif {$opt(sch) eq "rise"} {
    for {set k 0} {$k < $N} {incr k} {
        $ns at [expr {$opt(at) + $opt(rise) * $k / double($N)}] "sch_set $k $hi"
    }
} elseif {$opt(sch) ne "none"} {
    puts stderr "paliwal.tcl: sch must be at, bursts, rise or none"
    exit 2
}

proc finish {} {
    global ns N duration start sink tcp bmon t0 opt nswitch traced tf qkind
    set engine [expr {([clock clicks -microseconds] - $t0) / 1e6}]
    if {$opt(trace) ne ""} { $ns flush-trace; close $tf }
    set rx {}
    set gp {}
    set tos {}
    set rtx {}
    set bad 0
    for {set k 0} {$k < $N} {incr k} {
        # TCPSink's bytes_ adds the hdr_cmn size (1000 B) of every in-order
        # data packet, plus 40 B for the SYN: convert to payload.
        set b [$sink($k) set bytes_]
        set rem [expr {$b % 1000}]
        if {$rem != 0 && $rem != 40} { set bad 1 }
        set payload [expr {($b / 1000) * $opt(mss)}]
        lappend rx $payload
        lappend gp [format %.3f [expr {$payload * 8.0 / $duration}]]
        lappend tos [$tcp($k) set nrexmit_]
        lappend rtx [$tcp($k) set nrexmitpack_]
    }
    set starts {}
    for {set k 0} {$k < $N} {incr k} { lappend starts [format %.6f $start($k)] }
    set tl {}
    foreach t $traced { lappend tl "\[[join $t {, }]\]" }
    puts "{\"simulator\": \"ns-2.35\", \"m\": $opt(m), \"n\": $opt(n), \"duration_s\": $duration,"
    puts " \"queue\": \"$qkind\", \"topo\": \"$opt(topo)\", \"sch\": \"$opt(sch)\","
    puts " \"engine_s\": [format %.6f $engine], \"sch_switches\": $nswitch,"
    puts " \"bsc_drops\": [$bmon set pdrops_], \"bsc_departures\": [$bmon set pdepartures_],"
    puts " \"bsc_departed_bytes\": [$bmon set bdepartures_], \"bsc_arrivals\": [$bmon set parrivals_],"
    puts " \"sink_bytes_unexpected\": $bad,"
    puts " \"traced_links\": \[[join $tl {, }]\],"
    puts " \"flow_start_s\": \[[join $starts {, }]\],"
    puts " \"timeouts\": \[[join $tos {, }]\],"
    puts " \"retransmits\": \[[join $rtx {, }]\],"
    puts " \"rx_bytes\": \[[join $rx {, }]\],"
    puts " \"goodput_bps\": \[[join $gp {, }]\]}"
    exit 0
}

$ns at $duration "finish"
set t0 [clock clicks -microseconds]
$ns run
