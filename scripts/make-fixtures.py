#!/usr/bin/env python3
"""Generates hw-fixtures/<machine>/{sys,proc}: sysfs trees laid out as the kernel lays them out.

Each device lives under sys/devices/... with a `subsystem` symlink to sys/class/<subsystem>,
a `uevent` file, and attribute files spelled and newline-terminated as the kernel writes them;
sys/class/<subsystem>/<name> are relative symlinks into sys/devices. The same tree is read by
`joule status --root` directly and by libudev under umockdev (UMOCKDEV_DIR=<fixture>).

Conventions (see hw-fixtures/README.md):
  DANGLING  an attribute that is a dangling symlink: its read fails (ENOENT), standing in for
            firmware that answers ENODATA/EIO, which a plain file cannot reproduce.
  CPUFREQ   cpufreq policies (sys/devices/system/cpu/cpufreq/policyN) are plain directories, not
            devices (cpufreq is no class), with cpuK/cpufreq links into them as the kernel makes.
            cpuinfo_cur_freq is left out: it is mode 0400 (root-only), which git cannot keep.
  RAPL      powercap zones (sys/class/powercap/intel-rapl:N[:M]) carry counters as the kernel
            prints them. energy_uj is mode 0400 on real kernels since the CVE-2020-8694 fix,
            which git cannot keep and root ignores anyway: the unit tests model the unprivileged
            read with an injected file reader instead.

Usage: scripts/make-fixtures.py [OUTPUT_DIR]   (default: hw-fixtures next to this script)
The script rewrites only sys/ and proc/ of each machine; expected-status.json is kept.
"""
import os
import shutil
import sys

DANGLING = object()


class Tree:
    def __init__(self, root):
        self.root = root
        self.sys = os.path.join(root, "sys")
        for sub in ("sys", "proc"):
            path = os.path.join(root, sub)
            if os.path.lexists(path):
                shutil.rmtree(path)
        os.makedirs(os.path.join(self.sys, "devices"))
        os.makedirs(os.path.join(self.sys, "class"))

    def _write(self, path, value):
        if value is DANGLING:
            os.symlink(".no-data", path)
            return
        with open(path, "wb") as f:
            if isinstance(value, bytes):
                f.write(value)
            else:
                f.write((str(value) + "\n").encode())

    def device(self, devpath, subsystem, attrs, uevent=None, power_dir=False, parent_link=True):
        """devpath is relative to sys/, e.g. devices/LNXSYSTM:00/.../power_supply/BAT0."""
        directory = os.path.join(self.sys, devpath)
        os.makedirs(directory)
        class_dir = os.path.join(self.sys, "class", subsystem)
        os.makedirs(class_dir, exist_ok=True)
        os.symlink(os.path.relpath(class_dir, directory), os.path.join(directory, "subsystem"))
        name = os.path.basename(devpath)
        os.symlink(os.path.relpath(directory, class_dir), os.path.join(class_dir, name))
        if parent_link and subsystem == "power_supply":
            # power_supply devices link to the firmware device that registered them.
            parent = os.path.dirname(os.path.dirname(directory))
            os.symlink(os.path.relpath(parent, directory), os.path.join(directory, "device"))
        for key, value in attrs.items():
            self._write(os.path.join(directory, key), value)
        if uevent is None:
            uevent = {}
        with open(os.path.join(directory, "uevent"), "w") as f:
            for key, value in uevent.items():
                f.write(f"{key}={value}\n")
        if power_dir:
            # Runtime-PM attributes live in a power/ subdirectory, not on the device.
            power = os.path.join(directory, "power")
            os.makedirs(power)
            self._write(os.path.join(power, "async"), "disabled")
            self._write(os.path.join(power, "runtime_status"), "unsupported")
            self._write(os.path.join(power, "control"), "auto")
        return directory

    def power_supply(self, devpath, attrs, extra_uevent=None):
        """A power_supply device whose uevent carries POWER_SUPPLY_* for each value, as the kernel's does."""
        name = os.path.basename(devpath)
        uevent = {"POWER_SUPPLY_NAME": name}
        for key, value in attrs.items():
            if value is DANGLING or isinstance(value, bytes) or key in ("device",):
                continue
            uevent["POWER_SUPPLY_" + key.upper()] = str(value).strip()
        if extra_uevent:
            uevent.update(extra_uevent)
        return self.device(devpath, "power_supply", attrs, uevent, power_dir=True)

    def thermal_zone(self, index, zone_type, temp, trips=(), mode="enabled", policy="step_wise", extra=None):
        attrs = {
            "type": zone_type,
            "temp": temp,
            "mode": mode,
            "policy": policy,
            "available_policies": "fair_share bang_bang step_wise user_space power_allocator",
            "integral_cutoff": 0, "k_d": 0, "k_i": 0, "k_po": 0, "k_pu": 0, "offset": 0, "slope": 0,
            "sustainable_power": 0,
        }
        for i, trip in enumerate(trips):
            trip_type, trip_temp = trip[0], trip[1]
            attrs[f"trip_point_{i}_type"] = trip_type
            attrs[f"trip_point_{i}_temp"] = trip_temp
            if len(trip) > 2:
                attrs[f"trip_point_{i}_hyst"] = trip[2]
        if extra:
            attrs.update(extra)
        return self.device(f"devices/virtual/thermal/thermal_zone{index}", "thermal", attrs, power_dir=True)

    def cooling_device(self, index, cooling_type, cur, maximum):
        return self.device(
            f"devices/virtual/thermal/cooling_device{index}", "thermal",
            {"type": cooling_type, "cur_state": cur, "max_state": maximum}, power_dir=True)

    def hwmon(self, devpath, name, temps, uevent=None):
        """temps: list of (index, input, label, max, crit); None leaves the file out."""
        attrs = {"name": name}
        for index, value, label, maximum, crit in temps:
            attrs[f"temp{index}_input"] = value
            if label is not None:
                attrs[f"temp{index}_label"] = label
            if maximum is not None:
                attrs[f"temp{index}_max"] = maximum
            if crit is not None:
                attrs[f"temp{index}_crit"] = crit
                attrs[f"temp{index}_crit_alarm"] = 0
        return self.device(devpath, "hwmon", attrs, uevent, power_dir=True)

    def powercap_zone(self, path, name, energy_uj, max_energy_range_uj, constraints=(), enabled=1):
        """A RAPL zone under the intel-rapl control type. path is the zone chain below it, e.g.
        ("intel-rapl:0", "intel-rapl:0:0"); the parent zone must exist already. constraints:
        (name, power_limit_uw, time_window_us, max_power_uw) for constraint_0, constraint_1..."""
        control = "devices/virtual/powercap/intel-rapl"
        if not os.path.lexists(os.path.join(self.sys, control)):
            # The control type itself is a device of the class too (no zone: only `enabled`).
            self.device(control, "powercap", {"enabled": 1}, power_dir=True)
        attrs = {"name": name, "enabled": enabled, "energy_uj": energy_uj,
                 "max_energy_range_uj": max_energy_range_uj}
        for i, (cname, limit, window, max_power) in enumerate(constraints):
            attrs[f"constraint_{i}_name"] = cname
            attrs[f"constraint_{i}_power_limit_uw"] = limit
            attrs[f"constraint_{i}_time_window_us"] = window
            attrs[f"constraint_{i}_max_power_uw"] = max_power
        directory = self.device("/".join((control,) + tuple(path)), "powercap", attrs, power_dir=True)
        # A zone's parent device is its parent zone, or the control type for a top-level zone.
        os.symlink("..", os.path.join(directory, "device"))
        return directory

    def file(self, path, value):
        """A plain attribute outside any device directory; path is relative to sys/."""
        path = os.path.join(self.sys, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self._write(path, value)

    def cpufreq_policy(self, index, cpus, driver, governor, governors, min_khz, max_khz, cur_khz,
                       frequencies=None, epp=None, base_khz=None, scaling_max_khz=None, extra=None):
        """One cpufreq policy covering `cpus`, as drivers/cpufreq/cpufreq.c prints its files;
        cpu/cpuK/cpufreq links to it. frequencies: scaling_available_frequencies (cpufreq-dt,
        acpi-cpufreq); epp: the intel_pstate/amd-pstate energy_performance_preference."""
        directory = f"devices/system/cpu/cpufreq/policy{index}"
        listed = " ".join(str(cpu) for cpu in cpus)
        attrs = {
            "affected_cpus": listed, "related_cpus": listed,
            "cpuinfo_min_freq": min_khz, "cpuinfo_max_freq": max_khz,
            "scaling_driver": driver, "scaling_governor": governor,
            "scaling_available_governors": governors,
            "scaling_min_freq": min_khz, "scaling_max_freq": scaling_max_khz or max_khz,
            "scaling_cur_freq": cur_khz,
            "scaling_setspeed": "<unsupported>",
        }
        if frequencies is not None:
            # The kernel ends each frequency with a space.
            attrs["scaling_available_frequencies"] = "".join(f"{f} " for f in frequencies)
        if epp is not None:
            attrs["energy_performance_preference"] = epp
            attrs["energy_performance_available_preferences"] = "default performance balance_performance balance_power power "
        if base_khz is not None:
            attrs["base_frequency"] = base_khz
        if extra:
            attrs.update(extra)
        for key, value in attrs.items():
            self.file(f"{directory}/{key}", value)
        for cpu in cpus:
            os.makedirs(os.path.join(self.sys, f"devices/system/cpu/cpu{cpu}"), exist_ok=True)
            os.symlink(f"../cpufreq/policy{index}", os.path.join(self.sys, f"devices/system/cpu/cpu{cpu}/cpufreq"))

    def dmi(self, vendor, product, version="", bios="1.0"):
        attrs = {
            "sys_vendor": vendor, "product_name": product, "product_version": version,
            "bios_vendor": vendor, "bios_version": bios, "chassis_type": 10,
        }
        modalias = f"dmi:bvn{vendor}:bvr{bios}:svn{vendor}:pn{product}:pvr{version}:".replace(" ", "")
        self.device("devices/virtual/dmi/id", "dmi", attrs, {"MODALIAS": modalias})

    def proc(self, cores, model, user=(), arch="x86"):
        proc = os.path.join(self.root, "proc")
        os.makedirs(proc)
        # A static snapshot: two reads give the same counters, so usage is unknown (null).
        lines = []
        per_core = []
        for i in range(cores):
            base = 100000 + i * 1375
            per_core.append([base, 320 + i, 41000 + i * 211, 2400000 + i * 977, 5100 + i * 13, 0, 610 + i, 0, 0, 0])
        total = [sum(column) for column in zip(*per_core)]
        lines.append("cpu  " + " ".join(map(str, total)))
        for i, values in enumerate(per_core):
            lines.append(f"cpu{i} " + " ".join(map(str, values)))
        lines += ["intr 51223344 9 0 0 0", "ctxt 88123456", "btime 1763760000", "processes 412345",
                  "procs_running 2", "procs_blocked 0", "softirq 2233445 1 2 3 4 5 6 7 8 9 10"]
        with open(os.path.join(proc, "stat"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(proc, "cpuinfo"), "w") as f:
            for i in range(cores):
                if arch == "arm":
                    f.write(f"processor\t: {i}\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n"
                            f"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
                            f"CPU part\t: 0xd08\nCPU revision\t: 3\n\n")
                else:
                    f.write(f"processor\t: {i}\nvendor_id\t: GenuineIntel\nmodel name\t: {model}\n"
                            f"cpu MHz\t\t: 1800.000\ncpu cores\t: {max(1, cores // 2)}\n\n")
            if arch == "arm":
                f.write(f"Hardware\t: BCM2835\nRevision\t: c03114\nModel\t\t: {model}\n")


ACPI_EC = "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00"


def battery_attrs(status, capacity, energy_now=None, energy_full=None, energy_full_design=None,
                  power_now=None, voltage_min_design=None, voltage_now=None, cycle_count=0,
                  model="", manufacturer="", serial="", technology="Li-ion", capacity_level="Normal",
                  charge=None, extra=None):
    attrs = {
        "type": "Battery", "status": status, "present": 1, "technology": technology,
        "cycle_count": cycle_count, "capacity": capacity, "capacity_level": capacity_level,
        "model_name": model, "manufacturer": manufacturer, "serial_number": serial,
    }
    if voltage_min_design is not None:
        attrs["voltage_min_design"] = voltage_min_design
    if voltage_now is not None:
        attrs["voltage_now"] = voltage_now
    if charge is not None:
        attrs.update(charge)
    else:
        attrs.update({"energy_full_design": energy_full_design, "energy_full": energy_full,
                      "energy_now": energy_now, "power_now": power_now})
    attrs["alarm"] = 0
    if extra:
        attrs.update(extra)
    return attrs


def laptop_thermal(tree, acpitz=45000, pkg=52000, pch=48000, fan_state=0, processors=8, first_cooling=0):
    tree.thermal_zone(0, "acpitz", acpitz, [("critical", 128000, 0)])
    tree.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "acpitz", [(1, acpitz, None, None, 128000)])
    tree.thermal_zone(1, "pch_skylake", pch, [("critical", 115000, 0)])
    tree.thermal_zone(2, "x86_pkg_temp", pkg, [], policy="step_wise")
    for i in range(processors):
        tree.cooling_device(first_cooling + i, "Processor", 0, 3)
    tree.cooling_device(first_cooling + processors, "intel_powerclamp", 0, 50)
    tree.cooling_device(first_cooling + processors + 1, "Fan", fan_state, 1)
    tree.hwmon("devices/platform/coretemp.0/hwmon/hwmon2", "coretemp",
               [(1, pkg, "Package id 0", 100000, 100000)] +
               [(i + 2, pkg - 2000 - i * 1000, f"Core {i}", 100000, 100000) for i in range(4)])


def thinkpad_t480(root):
    t = Tree(root)
    t.dmi("LENOVO", "20L5CTO1WW", "ThinkPad T480", "N24ET69W (1.44 )")
    t.power_supply(f"{ACPI_EC}/ACPI0003:00/power_supply/AC", {"type": "Mains", "online": 0})
    t.power_supply("devices/platform/USBC000:00/power_supply/ucsi-source-psy-USBC000:001", {
        "type": "USB", "online": 0, "usb_type": "C [PD] PD_PPS", "voltage_min": 5000000,
        "voltage_max": 5000000, "current_max": 0, "current_now": 0, "scope": "Unknown"})
    # The internal battery sits idle at 87 % while the firmware drains the external one first;
    # ThinkPads report that idle pack as "Unknown" with power_now 0.
    t.power_supply(f"{ACPI_EC}/PNP0C0A:00/power_supply/BAT0", battery_attrs(
        "Unknown", 87, energy_now=18566000, energy_full=21340000, energy_full_design=23480000,
        power_now=0, voltage_min_design=11400000, voltage_now=12610000, cycle_count=412,
        model="01AV421", manufacturer="SMP", serial=" 1337",
        extra={"charge_control_start_threshold": 75, "charge_control_end_threshold": 80,
               "charge_behaviour": "[auto] inhibit-charge force-discharge"}))
    t.power_supply(f"{ACPI_EC}/PNP0C0A:01/power_supply/BAT1", battery_attrs(
        "Discharging", 41, energy_now=26300000, energy_full=64160000, energy_full_design=72000000,
        power_now=9874000, voltage_min_design=11100000, voltage_now=11520000, cycle_count=188,
        model="01AV424", manufacturer="LGC", serial=" 2468",
        extra={"charge_control_start_threshold": 75, "charge_control_end_threshold": 80,
               "charge_behaviour": "[auto] inhibit-charge force-discharge"}))
    laptop_thermal(t, acpitz=46000, pkg=54000, pch=47500)
    t.thermal_zone(3, "iwlwifi_1", DANGLING, [])
    t.hwmon("devices/platform/thinkpad_hwmon/hwmon/hwmon3", "thinkpad",
            [(1, 46000, "CPU", None, None), (2, DANGLING, "GPU", None, None)])
    t.hwmon("devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/hwmon4", "nvme",
            [(1, 36850, "Composite", 81850, 84850)])
    t.proc(8, "Intel(R) Core(TM) i5-8350U CPU @ 1.70GHz")


def asus_charge_units(root):
    t = Tree(root)
    t.dmi("ASUSTeK COMPUTER INC.", "ZenBook UX433FA_UX433FA", "1.0", "UX433FA.309")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC0", {"type": "Mains", "online": 1})
    # ASUS firmware counts in µAh and gives only voltage_min_design (11.55 V).
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C0A:00/power_supply/BAT0", battery_attrs(
        "Charging", 64, voltage_min_design=11550000, voltage_now=12480000, cycle_count=97,
        model="ASUS Battery", manufacturer="ASUSTeK", serial="", capacity_level="Normal",
        charge={"charge_full_design": 4160000, "charge_full": 3920000, "charge_now": 2510000,
                "current_now": 1820000}, extra={"charge_control_end_threshold": 100}))
    t.thermal_zone(0, "acpitz", 52000, [("critical", 103000, 0)])
    t.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "acpitz", [(1, 52000, None, None, 103000)])
    t.thermal_zone(1, "x86_pkg_temp", 61000, [])
    for i in range(8):
        t.cooling_device(i, "Processor", 0, 3)
    t.cooling_device(8, "intel_powerclamp", 0, 50)
    t.hwmon("devices/platform/coretemp.0/hwmon/hwmon1", "coretemp",
            [(1, 61000, "Package id 0", 100000, 100000), (2, 59000, "Core 0", 100000, 100000),
             (3, 60000, "Core 1", 100000, 100000), (4, 58000, "Core 2", 100000, 100000),
             (5, 61000, "Core 3", 100000, 100000)])
    t.hwmon("devices/platform/asus-nb-wmi/hwmon/hwmon3", "asus", [])
    t.proc(8, "Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz")


def dell_full_on_ac(root):
    t = Tree(root)
    t.dmi("Dell Inc.", "Latitude 7490", "", "1.24.0")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC", {"type": "Mains", "online": 1})
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0", battery_attrs(
        "Full", 100, energy_now=54720000, energy_full=54720000, energy_full_design=60002000,
        power_now=0, voltage_min_design=7600000, voltage_now=8651000, cycle_count=0,
        model="DELL GJKNX85", manufacturer="SMP", serial="2307", capacity_level="Full"))
    laptop_thermal(t, acpitz=38000, pkg=44000, pch=41000)
    t.hwmon("devices/platform/dell_smm_hwmon/hwmon/hwmon3", "dell_smm",
            [(1, 39000, "CPU", None, None), (2, 35000, "Ambient", None, None), (3, 33000, "SODIMM", None, None)])
    t.proc(8, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz")


def raspberry_pi4(root):
    t = Tree(root)
    t.thermal_zone(0, "cpu-thermal", 48686, [("critical", 110000, 0)], policy="step_wise",
                   extra={"available_policies": "step_wise"})
    t.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "cpu_thermal", [(1, 48686, None, None, 110000)])
    # rpi_volt only raises an undervoltage alarm; it has no temperature inputs.
    t.device("devices/platform/soc/soc:firmware/raspberrypi-hwmon/hwmon/hwmon1", "hwmon",
             {"name": "rpi_volt", "in0_lcrit_alarm": 0}, power_dir=True)
    # The firmware driver's flags (printed with %x): under-voltage and throttled now (bits 0
    # and 2), and both since boot (16, 18). A weak supply, as on many Pi 4s.
    t.file("devices/platform/soc/soc:firmware/get_throttled", "50005")
    # cpufreq-dt over the firmware clock: one policy for all four A72 cores, 600 MHz to 1.8 GHz.
    t.cpufreq_policy(0, range(4), "cpufreq-dt", "ondemand",
                     "conservative ondemand userspace powersave performance schedutil",
                     600000, 1800000, 1500000, frequencies=range(600000, 1800001, 100000))
    t.proc(4, "Raspberry Pi 4 Model B Rev 1.4", arch="arm")


def desktop_ups(root):
    t = Tree(root)
    t.dmi("Micro-Star International Co., Ltd.", "MS-7C56", "1.0", "A.40")
    # A UPS registered with the power_supply class (type UPS): on battery after a power cut,
    # estimating its own runtime (time_to_empty_now), no energy counters.
    t.power_supply("devices/pci0000:00/0000:00:14.0/usb1/1-4/1-4:1.0/power_supply/ups0", {
        "type": "UPS", "status": "Discharging", "online": 0, "present": 1, "capacity": 76,
        "capacity_level": "Normal", "voltage_now": 13200000, "time_to_empty_now": 1560,
        "technology": "Unknown", "model_name": "Back-UPS ES 700G", "manufacturer": "American Power Conversion",
        "serial_number": "5B1734T12345"})
    t.thermal_zone(0, "acpitz", 27800, [("critical", 105000, 0)])
    t.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "acpitz", [(1, 27800, None, None, 105000)])
    t.hwmon("devices/pci0000:00/0000:00:18.3/hwmon/hwmon1", "k10temp",
            [(1, 43250, "Tctl", None, None), (3, 41000, "Tccd1", None, None)])
    t.hwmon("devices/platform/nct6775.656/hwmon/hwmon2", "nct6798",
            [(1, 33000, "SYSTIN", 80000, None), (2, 41500, "CPUTIN", 80000, None)])
    # AMD Zen through intel_rapl_msr (Linux 5.11+): the same files, a package and its core, no
    # psys and no dram. Energy units of 2^-16 J give a range of (2^32 - 1) x 15.258 uJ.
    t.powercap_zone(("intel-rapl:0",), "package-0", 41872509114, 65532610987)
    t.powercap_zone(("intel-rapl:0", "intel-rapl:0:0"), "core", 12008771365, 65532610987)
    # acpi-cpufreq: a policy per thread with the three ACPI P-states; boost is global.
    for cpu in range(12):
        t.cpufreq_policy(cpu, [cpu], "acpi-cpufreq", "schedutil",
                         "conservative ondemand userspace powersave performance schedutil",
                         2200000, 3600000, 2200000 if cpu % 3 else 3600000,
                         frequencies=[3600000, 2800000, 2200000])
    t.file("devices/system/cpu/cpufreq/boost", 1)
    t.proc(12, "AMD Ryzen 5 3600 6-Core Processor")


def framework_mouse(root):
    t = Tree(root)
    t.dmi("Framework", "Laptop (11th Gen Intel Core)", "AA", "03.19")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/ACAD", {"type": "Mains", "online": 1})
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT1", battery_attrs(
        "Charging", 78, voltage_min_design=15480000, voltage_now=17010000, cycle_count=121,
        model="FRANBBAT", manufacturer="NVT", serial="0431", capacity_level="Normal",
        charge={"charge_full_design": 3572000, "charge_full": 3390000, "charge_now": 2644000,
                "current_now": 1211000}))
    # A Logitech mouse through a Unifying receiver (hidpp), and a Bluetooth keyboard (hid-input):
    # device-scope batteries, never part of the system's power.
    t.power_supply(
        "devices/pci0000:00/0000:00:14.0/usb3/3-3/3-3:1.2/0003:046D:C52B.0003/0003:046D:4082.0004/power_supply/hidpp_battery_0",
        {"type": "Battery", "scope": "Device", "online": 1, "status": "Discharging", "capacity": 30,
         "capacity_level": "Normal", "voltage_now": 3802000, "model_name": "MX Master 3",
         "manufacturer": "Logitech", "serial_number": "4082-4b-c3-1a-2f"})
    t.power_supply(
        "devices/pci0000:00/0000:00:14.0/usb3/3-10/3-10:1.0/bluetooth/hci0/hci0:256/0005:04E8:7021.0005/power_supply/hid-e4:5f:01:aa:bb:cc-battery",
        {"type": "Battery", "scope": "Device", "online": 1, "status": "Discharging", "capacity": 80,
         "model_name": "Keychron K3", "present": 1})
    laptop_thermal(t, acpitz=41000, pkg=47000, pch=43000)
    t.proc(8, "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz")


def ideapad_unknown(root):
    t = Tree(root)
    t.dmi("LENOVO", "81YK", "IdeaPad 5 14ARE05", "DTCN26WW(V1.12)")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00/ACPI0003:00/power_supply/ADP0",
                   {"type": "Mains", "online": 1})
    # The EC answers "Unknown" right after the adapter is plugged; at 72 % with AC online
    # UPower (and joule) resolve the composite to charging.
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00/PNP0C0A:00/power_supply/BAT0",
                   battery_attrs("Unknown", 72, energy_now=40680000, energy_full=56500000,
                                 energy_full_design=57000000, power_now=0, voltage_min_design=15360000,
                                 voltage_now=16310000, cycle_count=54, model="L19C4PF4",
                                 manufacturer="Celxpert", serial="2345"))
    t.thermal_zone(0, "acpitz", 44000, [("critical", 120000, 0)])
    t.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "acpitz", [(1, 44000, None, None, 120000)])
    t.hwmon("devices/pci0000:00/0000:00:18.3/hwmon/hwmon1", "k10temp", [(1, 49875, "Tctl", None, None)])
    t.proc(12, "AMD Ryzen 7 4700U with Radeon Graphics")


def overheated(root):
    t = Tree(root)
    t.dmi("HP", "HP ZBook 15 G5", "", "Q70 Ver. 01.09.01")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC", {"type": "Mains", "online": 1})
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0", battery_attrs(
        "Charging", 93, energy_now=84180000, energy_full=90500000, energy_full_design=95980000,
        power_now=15230000, voltage_min_design=11400000, voltage_now=13020000, cycle_count=302,
        model="ZG06095XL", manufacturer="Hewlett-Packard", serial="41225 2018/07/16"))
    # acpitz at 101 °C: past its passive trip (95) and within 5 °C of critical (105); the ACPI
    # fan (an active cooling device) runs at full speed and the CPU is throttled.
    t.thermal_zone(0, "acpitz", 101000, [
        ("critical", 105000, 0), ("passive", 95000, 0), ("active", 70000, 0), ("active", 60000, 0)])
    t.hwmon("devices/virtual/thermal/thermal_zone0/hwmon0", "acpitz", [(1, 101000, None, None, 105000)])
    t.thermal_zone(1, "x86_pkg_temp", 99000, [])
    for i in range(4):
        t.cooling_device(i, "Fan", 1, 1)
    for i in range(12):
        t.cooling_device(4 + i, "Processor", 2, 3)
    t.hwmon("devices/platform/coretemp.0/hwmon/hwmon2", "coretemp",
            [(1, 99000, "Package id 0", 100000, 100000)] +
            [(i + 2, 95000 + i * 1000, f"Core {i}", 100000, 100000) for i in range(4)])
    # intel_pstate (active): a policy per thread under powersave with EPP. The thermal
    # driver's passive cooling holds scaling_max_freq well under cpuinfo_max_freq.
    for cpu in range(12):
        t.cpufreq_policy(cpu, [cpu], "intel_pstate", "powersave", "performance powersave",
                         800000, 4300000, 1200000 + cpu * 10000, epp="balance_performance",
                         base_khz=2600000, scaling_max_khz=1800000)
    for name, value in (("status", "active"), ("no_turbo", 0), ("max_perf_pct", 42),
                        ("min_perf_pct", 18), ("num_pstates", 36), ("turbo_pct", 48)):
        t.file(f"devices/system/cpu/intel_pstate/{name}", value)
    t.proc(12, "Intel(R) Core(TM) i7-8850H CPU @ 2.60GHz")


def broken(root):
    t = Tree(root)
    t.dmi("GOOGLE", "Kevin", "rev4", "Google_Kevin.8785.178.0")
    t.power_supply("devices/platform/ff100000.saradc/power_supply/AC", {"type": "Mains", "online": "garbage"})
    # A fuel gauge mid-reset: garbage, empty and unreadable values must come out null, never 0.
    t.power_supply("devices/platform/ff110000.i2c/i2c-0/0-0009/power_supply/sbs-0-0009", {
        "type": "Battery", "status": "Discharging", "present": 1, "technology": "Li-ion",
        "capacity": "-NaN", "energy_now": "garbage", "energy_full": 39960000, "energy_full_design": "",
        "power_now": DANGLING, "voltage_now": 7620000, "cycle_count": "-1", "model_name": b"bq\xff40z50\x01\n",
        "manufacturer": "", "serial_number": DANGLING})
    t.thermal_zone(0, "cpu", DANGLING, [("critical", 95000, 0), ("passive", 85000, 2000)])
    t.thermal_zone(1, "gpu", "garbage", [("critical", 95000, 0)])
    t.thermal_zone(2, "battery", b"", [])
    t.thermal_zone(3, "charger", -274000, [("critical", 80000, 0)])
    t.thermal_zone(4, "soc", 47500, [("critical", 95000, 0), ("passive", "", 0)])
    t.cooling_device(0, "Processor", "garbage", 4)
    t.cooling_device(1, "thermal-cpufreq-0", 0, DANGLING)
    t.hwmon("devices/platform/ff0d0000.tsadc/hwmon/hwmon0", "tsadc", [(1, "", None, None, None)])
    # RK3399: a policy per cluster (four A53s, two A72s). The big cluster's driver answers
    # garbage for its current frequency and fails to read its governor.
    t.cpufreq_policy(0, range(4), "cpufreq-dt", "schedutil", "userspace powersave performance schedutil",
                     408000, 1416000, 816000, frequencies=[408000, 600000, 816000, 1008000, 1200000, 1416000])
    t.cpufreq_policy(4, [4, 5], "cpufreq-dt", DANGLING, "userspace powersave performance schedutil",
                     408000, 1800000, "garbage", frequencies=[408000, 600000, 816000, 1008000, 1200000, 1416000,
                                                              1608000, 1800000])
    t.proc(6, "ARMv8 Processor rev 4 (v8l)", arch="arm")


def xps_low(root):
    t = Tree(root)
    t.dmi("Dell Inc.", "XPS 13 9370", "", "1.21.0")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC", {"type": "Mains", "online": 0})
    t.power_supply("devices/platform/USBC000:00/power_supply/ucsi-source-psy-USBC000:001", {
        "type": "USB", "online": 0, "usb_type": "C [PD] PD_PPS", "voltage_min": 5000000,
        "voltage_max": 5000000, "current_max": 0, "current_now": 0, "scope": "Unknown"})
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0", battery_attrs(
        "Discharging", 14, energy_now=6458000, energy_full=46120000, energy_full_design=51992000,
        power_now=5836000, voltage_min_design=7600000, voltage_now=7389000, cycle_count=377,
        model="DELL H754V82", manufacturer="SMP", serial="9921"))
    laptop_thermal(t, acpitz=35000, pkg=41000, pch=39000)
    # Kaby Lake R RAPL: package-0 with core, uncore and dram inside it, and psys (the whole
    # platform) beside it. Energy units of 2^-14 J give a range of (2^32 - 1) x 61.035 uJ.
    # package-0 sits 47.8 J below its range, so the tests' second read can wrap it.
    rapl_range = 262143328850
    t.powercap_zone(("intel-rapl:0",), "package-0", 262095512433, rapl_range, [
        ("long_term", 15000000, 27983872, 15000000), ("short_term", 25000000, 2440, 0)])
    t.powercap_zone(("intel-rapl:0", "intel-rapl:0:0"), "core", 98734113907, rapl_range,
                    [("long_term", 0, 976, 0)], enabled=0)
    t.powercap_zone(("intel-rapl:0", "intel-rapl:0:1"), "uncore", 4511893420, rapl_range,
                    [("long_term", 0, 976, 0)], enabled=0)
    t.powercap_zone(("intel-rapl:0", "intel-rapl:0:2"), "dram", 21305776012, rapl_range,
                    [("long_term", 0, 976, 0)], enabled=0)
    t.powercap_zone(("intel-rapl:1",), "psys", 187366905114, rapl_range, [
        ("long_term", 0, 27983872, 0), ("short_term", 0, 976, 0)], enabled=0)
    t.proc(8, "Intel(R) Core(TM) i7-8550U CPU @ 1.80GHz")


def macbook_air(root):
    t = Tree(root)
    # Apple's firmware capacity disagrees with its own counters; UPower (and joule) ignore the
    # capacity file when DMI says MacBook, and take charge_now / charge_full instead.
    t.dmi("Apple Inc.", "MacBookAir7,2", "1.0", "MBA71.88Z.0178.B00.1904121227")
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/ADP1", {"type": "Mains", "online": 0})
    t.power_supply("devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00/PNP0C0A:00/power_supply/BAT0",
                   battery_attrs("Discharging", 60, voltage_min_design=7600000, voltage_now=7920000,
                                 cycle_count=833, model="bq20z451", manufacturer="SMP", serial="",
                                 charge={"charge_full_design": 7150000, "charge_full": 6620000,
                                         "charge_now": 4634000, "current_now": 1103000}))
    t.thermal_zone(0, "x86_pkg_temp", 51000, [])
    for i in range(4):
        t.cooling_device(i, "Processor", 0, 10)
    t.hwmon("devices/platform/applesmc.768/hwmon/hwmon1", "applesmc",
            [(1, 39000, "TB0T", None, None), (2, 52000, "TC0P", None, None)])
    t.hwmon("devices/platform/coretemp.0/hwmon/hwmon2", "coretemp",
            [(1, 51000, "Package id 0", 105000, 105000), (2, 50000, "Core 0", 105000, 105000),
             (3, 49000, "Core 1", 105000, 105000)])
    t.proc(4, "Intel(R) Core(TM) i5-5350U CPU @ 1.80GHz")


MACHINES = {
    "thinkpad-t480-two-batteries-discharging": thinkpad_t480,
    "asus-zenbook-ux433-charging-charge-units": asus_charge_units,
    "dell-latitude-7490-full-on-ac": dell_full_on_ac,
    "raspberry-pi-4-no-battery": raspberry_pi4,
    "desktop-ups-on-battery": desktop_ups,
    "framework-13-peripheral-mouse-keyboard": framework_mouse,
    "lenovo-ideapad-unknown-status-on-ac": ideapad_unknown,
    "hp-zbook-overheated-fan-active": overheated,
    "chromebook-broken-sensors": broken,
    "dell-xps-13-low-battery-discharging": xps_low,
    "macbook-air-2015-capacity-quirk": macbook_air,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "hw-fixtures")
    for name, build in MACHINES.items():
        build(os.path.join(out, name))
    print(f"wrote {len(MACHINES)} fixtures to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
